# Planar rigid multibody systems (issue 23, seed 002 §10.2 and §10.4) through `vicms simulate -system_type multibody`: the
# bouncing pendulum (swing time to the wall against the elliptic integral, rebound by Newton's law, energy before the
# impact, joint drift: none with nsgalpha, some with Moreau-Jean), the rocking block (free-flight parabola, first impact by
# Newton's law), 1 = 2 = 3 ranks bitwise, the model file's bad input on 1 and 2 ranks, a stop and resume.
vicms_app_test(multibody)
