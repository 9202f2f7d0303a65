# `vicms cea`: the stability sweep and FRF map of sliding bodies (seed 003) against an independent numpy reference, 1 and 2
# ranks equal, bad input refused.
vicms_app_test(cea)
