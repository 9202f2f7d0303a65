"""Case tables: the -cases_* options of an ensemble (README "Ensembles"), built in Python, and the table of case
parameters vicms will make from the deterministic ones (grids and value lists), in its order (the first axis slowest).

    c = Cases().grid("load_drive_frequency", 0.5, 3, 26).values("contact_mu", [0.1, 0.3])
    c.options()    # {"cases_grid": "load_drive_frequency:0.5:3:26", "cases_values": "contact_mu:0.1/0.3"}
    c.table()      # Table of 52 rows, columns load_drive_frequency, contact_mu, as vicms numbers them
"""
import itertools

import numpy as np

from .files import Table


def number(v):
    """A number as vicms reads it back exactly (17 significant digits, no spaces)."""
    return f"{float(v):.17g}"


class Cases:
    """The axes of a case set: grids, value lists, slow sweeps and random parameters (the -cases_* options)."""

    def __init__(self):
        self._grid = []
        self._values = []
        self._sweep = []
        self._random = []
        self._opts = {}

    def grid(self, name, start, stop, n, log=False):
        """An axis of n values from start to stop (linear, or logarithmic with log=True): -cases_grid."""
        if int(n) != n or n < 1:
            raise ValueError(f"grid {name}: n = {n}, expected a positive integer")
        if log and (start <= 0 or stop <= 0):
            raise ValueError(f"grid {name}: a logarithmic axis needs start > 0 and stop > 0")
        self._grid.append((name, float(start), float(stop), int(n), bool(log)))
        return self

    def values(self, name, values):
        """An axis of given values: -cases_values."""
        values = [float(v) for v in np.ravel(values)]
        if not values:
            raise ValueError(f"values {name}: no values")
        self._values.append((name, values))
        return self

    def sweep(self, load, f0, f1, direction="both"):
        """Slow sweeps of a load whose time function is sweep_linear or sweep_log, up from f0 and/or down from f1:
        -cases_sweep (their end times come from the load's sweep rate: vicms computes them)."""
        if direction not in ("up", "down", "both"):
            raise ValueError(f"sweep {load}: direction {direction!r}, expected up, down or both")
        if not 0 < f0 < f1:
            raise ValueError(f"sweep {load}: expected 0 < f0 < f1, got {f0}, {f1}")
        self._sweep.append((load, float(f0), float(f1), direction))
        return self

    def random(self, name, distribution, *params):
        """A random parameter: uniform A B, normal MEAN SD, lognormal MU SIGMA, truncated_normal MEAN SD LO HI."""
        need = {"uniform": 2, "normal": 2, "lognormal": 2, "truncated_normal": 4}
        if need.get(distribution) != len(params):
            raise ValueError(f"random {name}: {distribution} with {len(params)} numbers (expected one of {need})")
        self._random.append((name, distribution, [float(p) for p in params]))
        return self

    def samples(self, n, sampling="mc", seed=None):
        """n samples of the random parameters per grid point, Monte Carlo (mc) or Latin hypercube (lhs), the seed."""
        self._opts["cases_samples"] = int(n)
        self._opts["cases_sampling"] = sampling
        if seed is not None:
            self._opts["cases_seed"] = int(seed)
        return self

    def options(self):
        """The -cases_* options (without the dash) as a dict for a job file or vicms.run."""
        o = {}
        if self._grid:
            o["cases_grid"] = ",".join(f"{n}:{number(a)}:{number(b)}:{m}" + (":log" if lg else "") for n, a, b, m, lg in self._grid)
        if self._values:
            o["cases_values"] = ",".join(f"{n}:" + "/".join(number(v) for v in vs) for n, vs in self._values)
        if self._sweep:
            o["cases_sweep"] = ",".join(f"{ld}:{number(a)}:{number(b)}:{d}" for ld, a, b, d in self._sweep)
        if self._random:
            o["cases_random"] = ",".join(f"{n}:{d}:" + ":".join(number(p) for p in ps) for n, d, ps in self._random)
        o.update(self._opts)
        return o

    def axes(self):
        """[(name, values)] of the grid and value axes, in vicms's order: grids, then value lists."""
        out = []
        for name, a, b, m, lg in self._grid:
            s = np.arange(m) / (m - 1) if m > 1 else np.zeros(1)
            v = a * (b / a) ** s if lg else a + s * (b - a)
            if m > 1:
                v[-1] = b  # vicms: exactly the end the user wrote
            out.append((name, v))
        out.extend((name, np.asarray(vs)) for name, vs in self._values)
        return out

    def table(self):
        """The case parameters vicms will number 0, 1, ... (the first axis slowest), for grids and value lists only:
        sweeps and samples are computed by vicms (read them from the results file's parameters)."""
        if self._sweep or self._random:
            raise ValueError("Cases.table: sweeps and random samples are made by vicms; read Results.parameters")
        axes = self.axes()
        if not axes:
            return Table(np.zeros((1, 0)), [])
        rows = np.array(list(itertools.product(*[v for _, v in axes])), dtype=float)
        return Table(rows, [n for n, _ in axes])

    def __len__(self):
        return len(self.table())
