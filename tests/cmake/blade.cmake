# The Rotor 37 blade rubbing an oval casing (seed 000 §5.3, issue 6): MacNeal + leapfrog over 2 revolutions, the coarse
# step against the fine one (skipped when ../shared/data/rotor37/blade.inp is absent).
vicms_app_test(blade)
