#!/usr/bin/python3
"""scripts/plot_cea.py: a thin wrapper over vicms.plot.cea_main of the Python package in python/ (docs/python.md);
-o is the folder the PNGs go to, as for every vicms plot. /usr/bin/python3 scripts/plot_cea.py -h for the usage."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from vicms.plot import cea_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(cea_main())
