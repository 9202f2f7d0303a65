# `vicms slide`: the transient of sliding bodies (seed 003): 1, 2 and 3 ranks equal, the history against independent
# computations (energy identity, load work, random force RMS and band, seeds), frictionless second order, SIGTERM, bad input.
vicms_app_test(slide)
