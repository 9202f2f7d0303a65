# The flexible slider-crank's convergence in the number of rod elements (seed 001 Fig. 20, issue 23 §4): the wrist pin a
# distributing coupling with the edge's consistent weights, against equal weights; bad weights refused.
vicms_app_test(slider_crank_flexible_mesh)
