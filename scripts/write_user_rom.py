#!/usr/bin/env python3
"""Write a vicms "user ROM" (docs/user_rom.md): a thin wrapper over the Python package's vicms.userrom (python/vicms,
docs/python.md), kept for the scripts and tests that import it from here.

As a module:
    from write_user_rom import springs, write_user_rom   # springs(n, [(i, j, k), (i, None, k), ...]): a stiffness matrix
    write_user_rom("my.h5", K, M, D=None, contact_dims=[1, 3], loads={"gravity": f}, outputs={"tip": o},
                   shapes={"translation_x": ones}, massless=False, units="SI", contact_kinds=None)

From the command line it writes the examples:
    write_user_rom.py ball ball.h5      # seed 002 §10.1: 1 DOF, m = 1, gravity load -10, one contact
    write_user_rom.py stop stop.h5      # the stop oscillator of docs/hb.md: a unit mass on k1 = (2 pi)^2, joined by
                                        # k2 = 3 k1 to its massless contact coordinate (a rigid stop), 2 % damping,
                                        # load "drive" on the mass, output "mass"
    write_user_rom.py bar bar.h5        # seed 002 §10.3: free bar, E = 900, rho = 1, L = 10, 200 two-node elements
                                        # (lumped mass), contact at its first node, displacements along the contact normal
    write_user_rom.py jenkins j.h5      # docs/python.md: a unit mass on k = (2 pi)^2 and on kt = 3k in series with a
                                        # Coulomb slider (a 2D frictional contact), load "drive", outputs "mass", "slider"
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from vicms.userrom import EXAMPLES, FORMAT_VERSION, UserROM, bar, ball, friction_options, jenkins, springs, stop, write_user_rom  # noqa: E402,F401

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in EXAMPLES:
        sys.exit(f"usage: write_user_rom.py {'|'.join(EXAMPLES)} FILE.h5")
    EXAMPLES[sys.argv[1]](sys.argv[2])
