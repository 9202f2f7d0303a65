"""vicms from Python (docs/python.md): read ROM, modes, results, harmonic balance, slide and cea files into NumPy arrays
with names and units (vicms.files), and the full-field series of `vicms fields` (vicms.fields), write user ROMs with frictional contacts (vicms.userrom), build case tables
(vicms.cases), run jobs through mpirun (vicms.run), and plot (vicms.plot, imported on use: it needs matplotlib)."""
from .cases import Cases
from .fields import Fields, read_fields
from .files import (FileFormatError, Results, Table, Units, read, read_bodies, read_cea, read_hb, read_modes, read_results,
                    read_rom, read_slide)
from .run import VicmsError, find_vicms, run, write_job
from .userrom import UserROM, friction_options, jenkins, springs, write_user_rom

__version__ = "0.1.0"

__all__ = ["Cases", "FileFormatError", "Fields", "read_fields", "Results", "Table", "Units", "UserROM", "VicmsError", "find_vicms",
           "friction_options", "jenkins", "read", "read_bodies", "read_cea", "read_hb", "read_modes", "read_results",
           "read_rom", "read_slide", "run", "springs", "write_job", "write_user_rom"]
