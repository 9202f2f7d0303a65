"""Run vicms jobs from Python: write the options to a job file, run `mpirun -n N vicms COMMAND -options_file JOB`, and
return what the job wrote (results, ROM, modes, slide or cea file) read by vicms.files.

    r = run("hb", {"rom_file": "j.h5", "hb_freq_range": "0.5,3", ..., "results_file": "hb.h5"}, ranks=2)
    r.results.branch()        # the branch; r.stdout holds what vicms printed
"""
import os
import shutil
import subprocess
from dataclasses import dataclass

from . import fields, files

# what each command writes: (the option naming the file, its default, the reader)
WRITES = {
    "simulate": ("results_file", "results.h5", files.read_results),
    "run": ("results_file", "results.h5", files.read_results),
    "hb": ("results_file", "results.h5", files.read_results),
    "reduce": ("rom_file", "rom.h5", files.read_rom),
    "modes": ("modes_file", "modes.h5", files.read_modes),
    "slide": ("slide_file", "slide.h5", files.read_slide),
    "cea": ("cea_file", "cea.h5", files.read_cea),
    "fields": ("fields_file", "fields.h5", fields.read_fields),
}


class VicmsError(RuntimeError):
    """vicms exited with a non-zero status; the message is its error line (or the end of what it printed)."""

    def __init__(self, message, returncode, stdout, stderr):
        super().__init__(message)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


@dataclass
class Run:
    command: list
    returncode: int
    stdout: str
    stderr: str
    path: str
    results: object


def find_vicms(vicms=None):
    """The vicms executable: the argument, $VICMS_BIN, the source tree's build/vicms, or vicms on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for c in (vicms, os.environ.get("VICMS_BIN"), os.path.join(here, "..", "..", "build", "vicms"), shutil.which("vicms")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    raise FileNotFoundError("no vicms executable: give vicms=PATH, set VICMS_BIN, or build it into build/ "
                            "(bash scripts/test.sh -R nothing)")


def option_value(v):
    """An option value as a job file line holds it: lists joined by commas, booleans true/false, numbers exactly."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(option_value(x) for x in v)
    if isinstance(v, float):
        return f"{v:.17g}"
    s = str(v)
    return "''" if s == "" else s


def write_job(path, options):
    """A job file (flat `key: value` lines, keys without the dash) of the options dict."""
    with open(path, "w") as f:
        f.write("# written by vicms.run.write_job\n")
        for k, v in options.items():
            k = k.lstrip("-")
            if not k or any(ch.isspace() for ch in k):
                raise ValueError(f"write_job: bad option name {k!r}")
            f.write(f"{k}: {option_value(v)}\n")
    return path


def mpi_environment():
    """The environment of the ranks: Open MPI allowed to run as root and to oversubscribe, PMIx without munge
    (scripts/setup.sh does the same)."""
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env.setdefault("PMIX_MCA_psec", "^munge")
    return env


def run(command, options=None, ranks=1, cwd=None, job_file=None, args=(), vicms=None, mpiexec="mpirun", timeout=None,
        read=True):
    """Run `mpiexec -n ranks vicms command -options_file job_file args...` in cwd with the options dict written to
    job_file (default: COMMAND_job.yaml in cwd), and return a Run with what vicms printed and, for the commands that
    write a file, that file read (Run.results: Results, ROM, Modes, Slide, CEA or Fields). Raises VicmsError on a non-zero
    exit (its message is vicms's error line)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    options = dict(options or {})
    job_file = os.path.join(cwd, job_file or f"{command}_job.yaml")
    write_job(job_file, options)
    cmd = [mpiexec, "--oversubscribe", "-n", str(int(ranks)), find_vicms(vicms), command, "-options_file", job_file,
           *[str(a) for a in args]]
    p = subprocess.run(cmd, cwd=cwd, env=mpi_environment(), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        lines = [x for x in (p.stderr + "\n" + p.stdout).splitlines() if "error" in x.lower()]
        tail = lines[0] if lines else "\n".join((p.stderr or p.stdout).strip().splitlines()[-5:])
        raise VicmsError(f"vicms {command} exited with status {p.returncode}: {tail}", p.returncode, p.stdout, p.stderr)
    path, results = None, None
    if command in WRITES:
        key, default, reader = WRITES[command]
        given = [a for i, a in enumerate(args[1:]) if str(args[i]) == f"-{key}"]
        path = os.path.join(cwd, str(given[-1]) if given else str(options.get(key, default)))
        if read and os.path.exists(path):
            results = reader(path)
    return Run(command=cmd, returncode=p.returncode, stdout=p.stdout, stderr=p.stderr, path=path, results=results)
