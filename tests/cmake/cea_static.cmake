# `vicms cea -cea_state static` (issue 27): the static sliding state and the CEA about it against an independent numpy
# solution, 1, 2 and 3 ranks equal, the job's first band (unstable about the static state, stable about the undeformed one).
vicms_app_test(cea_static)
