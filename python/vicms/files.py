"""Readers of the files vicms writes (README "Files", docs/substructures.md): ROM, bodies, modes, results (time stepping
and harmonic balance), slide history and cea files, into NumPy arrays with their names and units.

Every reader checks the file's `format` attribute and raises FileFormatError naming the file and what was found.
Units come from the files: a ROM's or results file's `units` attribute ("N-m-kg-s", "N-mm-t-s", "SI"), a slide or cea
file's bodies file (its first body's `units`); a quantity whose unit is unknown has the unit "".
"""
import os
from dataclasses import dataclass, field

import h5py
import numpy as np

STATUS = {0: "pending", 1: "done", 2: "failed"}
ENERGY_COLUMNS = ("kinetic", "potential", "damping_dissipation", "friction_dissipation", "external_work", "obstacle_work",
                  "balance_error", "numerical_dissipation")  # files written before 2026-11-28 have the first seven
STATISTICS_COLUMNS = ("mean", "std", "min", "q05", "q25", "q50", "q75", "q95", "max")


class FileFormatError(ValueError):
    """A file that is missing, not HDF5, of another format, or without a dataset its format requires."""


def text(v):
    """An HDF5 string attribute or element as str: h5py may give bytes, str, numpy scalars or 1-element arrays."""
    if isinstance(v, np.ndarray):
        return ",".join(text(x) for x in v.ravel())
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "replace")
    return str(v)


def names(v):
    """A comma-separated name list (an attribute), or a dataset of strings, as a list of str."""
    if v is None:
        return []
    if isinstance(v, np.ndarray) and v.ndim > 0 and v.size > 1:
        return [text(x).strip() for x in v.ravel()]
    s = text(v)
    return [x.strip() for x in s.split(",")] if s else []


@dataclass
class Units:
    """The unit system of a file: its text as written and the units of force, length, mass and time in it."""
    text: str = ""
    force: str = ""
    length: str = ""
    mass: str = ""
    time: str = "s"

    @classmethod
    def parse(cls, s):
        """"N-mm-t-s" (force-length-mass-time, the -cms_units convention), "SI" (N-m-kg-s), or "" (unknown)."""
        s = text(s).strip()
        if s.upper() == "SI":
            return cls(s, "N", "m", "kg", "s")
        parts = s.split("-")
        if len(parts) == 4 and all(parts):
            return cls(s, *parts)
        if len(parts) >= 2 and all(parts[:2]):
            return cls(s, parts[0], parts[1])
        return cls(s)

    def of(self, quantity):
        """The unit of a quantity: length, force, mass, time, energy, velocity, acceleration, frequency, stiffness,
        compliance, 1/time, count or none; "" when the file does not say."""
        f, l, t = self.force, self.length, self.time or "s"
        table = {
            "length": l, "force": f, "mass": self.mass, "time": t, "frequency": "Hz", "count": "", "none": "",
            "energy": f"{f}\u00b7{l}" if f and l else "",
            "velocity": f"{l}/{t}" if l else "",
            "acceleration": f"{l}/{t}\u00b2" if l else "",
            "stiffness": f"{f}/{l}" if f and l else "",
            "compliance": f"{l}/{f}" if f and l else "",
            "1/time": f"1/{t}",
        }
        if quantity not in table:
            raise KeyError(f"unknown quantity {quantity!r} (one of {', '.join(table)})")
        return table[quantity]

    def label(self, quantity):
        """' [mm]'-style suffix of an axis label, '' when the unit is unknown or there is none."""
        u = self.of(quantity)
        return f" [{u}]" if u else ""


def quantity_kind(name):
    """What a results quantity measures, from its name (README "Summaries"; docs/hb.md quantities)."""
    if name in ("max_contact_force",):
        return "force"
    if name in ("min_gap",):
        return "length"
    if name in ("points", "turning_points", "unstable_points", "steps", "case"):
        return "count"
    if name in ("wall_time",):
        return "time"
    if name.startswith("peak_frequency_") or name.endswith("_frequency"):
        return "frequency"
    for p in ("max_abs_", "rms_", "amplitude_", "mean_", "min_", "max_", "peak_amplitude_"):
        if name.startswith(p):
            return "length"
    return "none"


@dataclass
class Table:
    """A 2-D array with named columns and a unit per column: t["kinetic"] is a column, t.data the array."""
    data: np.ndarray
    columns: list
    units: dict = field(default_factory=dict)

    def __getitem__(self, name):
        if name not in self.columns:
            raise KeyError(f"no column {name!r} (columns: {', '.join(self.columns)})")
        return self.data[:, self.columns.index(name)]

    def __contains__(self, name):
        return name in self.columns

    def __len__(self):
        return self.data.shape[0]

    def unit(self, name):
        return self.units.get(name, "")


def _open(path, fmt):
    """The HDF5 file at path, checked to be of format fmt (a str or tuple of str)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileFormatError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise FileFormatError(f"{path}: not an HDF5 file ({e})") from None
    got = text(f.attrs.get("format", ""))
    want = (fmt,) if isinstance(fmt, str) else tuple(fmt)
    if got not in want:
        f.close()
        found = f"format = {got!r}" if got else "no format attribute"
        raise FileFormatError(f"{path}: not a vicms {want[0].replace('vicms-', '')} file ({found}, expected format = "
                              f"{' or '.join(repr(w) for w in want)})")
    return f


def _need(f, path, name):
    if name not in f:
        raise FileFormatError(f"{path}: no dataset {name} (a {text(f.attrs['format'])} file needs it)")
    return f[name]


def _table(d, default_columns=None, unit=None, units=None):
    data = np.asarray(d[()], dtype=float)
    data = data.reshape(len(data), -1) if data.ndim != 2 else data
    cols = names(d.attrs.get("columns")) or list(default_columns or [])
    if len(cols) != data.shape[1]:
        cols = [f"{d.name.rsplit('/', 1)[-1]}{j}" for j in range(data.shape[1])]
    u = {c: unit for c in cols} if unit is not None else {}
    if units is not None:
        u = {c: units(c) for c in cols}
    return Table(data, cols, u)


def _attrs(obj):
    out = {}
    for k, v in obj.attrs.items():
        if isinstance(v, (bytes, np.bytes_, str)):
            out[k] = text(v)
        elif isinstance(v, np.ndarray) and v.size == 1:
            out[k] = v.ravel()[0].item()
        elif isinstance(v, np.generic):
            out[k] = v.item()
        else:
            out[k] = v
    return out


# ------------------------------------------------------------------------------------------------------------- ROM
@dataclass
class ROM:
    """A ROM file (rom.h5, or one body of a bodies file): K, M, D (n x n), the first n_boundary coordinates the contact
    coordinates (per contact the normal, then the tangents)."""
    path: str
    method: str
    massless: bool
    n_boundary: int
    n_modes: int
    units: Units
    K: np.ndarray
    M: np.ndarray
    D: np.ndarray
    frequencies_hz: np.ndarray
    contact: dict
    loads: dict
    outputs: dict
    shapes: dict
    attrs: dict

    @property
    def n(self):
        return self.K.shape[0]


def _rom(g, path):
    _need(g, path, "K")
    contact = {}
    if "contact" in g:
        for k, d in g["contact"].items():
            contact[k] = np.asarray(d[()])
    dims = contact.get("dims", np.zeros(0, dtype=int)).astype(int)
    contact["dims"] = dims
    if "offsets" not in contact:
        contact["offsets"] = np.concatenate([[0], np.cumsum(dims)[:-1]]).astype(int) if len(dims) else dims
    if "kinds" not in contact:
        contact["kinds"] = np.zeros(len(dims), dtype=int)
    vecs = {}
    for grp in ("loads", "outputs", "shapes"):
        vecs[grp] = {k: np.asarray(d[()], dtype=float) for k, d in g[grp].items()} if grp in g else {}
    return ROM(path=path, method=text(g.attrs.get("method", "")), massless=bool(int(g.attrs.get("massless", 0))),
               n_boundary=int(g.attrs.get("n_boundary", 0)), n_modes=int(g.attrs.get("n_modes", 0)),
               units=Units.parse(g.attrs.get("units", "")), K=np.asarray(g["K"][()], dtype=float),
               M=np.asarray(_need(g, path, "M")[()], dtype=float), D=np.asarray(_need(g, path, "D")[()], dtype=float),
               frequencies_hz=np.asarray(g["frequencies_hz"][()], dtype=float) if "frequencies_hz" in g else np.zeros(0),
               contact=contact, loads=vecs["loads"], outputs=vecs["outputs"], shapes=vecs["shapes"], attrs=_attrs(g))


def read_rom(path):
    """A ROM file (`vicms reduce`, or a user ROM): the ROM dataclass."""
    with _open(path, "vicms-rom") as f:
        return _rom(f, os.fspath(path))


def read_bodies(path):
    """A bodies file (`vicms reduce -bodies`): {body name: ROM}, each with its boundary table in attrs["boundary"]."""
    with _open(path, "vicms-bodies") as f:
        out = {}
        for b in names(f.attrs.get("bodies")) or list(f["bodies"].keys()):
            g = f[f"bodies/{b}"]
            rom = _rom(g, os.fspath(path))
            if "boundary" in g:
                rom.attrs["boundary"] = {k: np.asarray(d[()]) for k, d in g["boundary"].items()}
            out[b] = rom
        return out


def bodies_units(path, relative_to=None):
    """The units of a bodies file (its first body's), Units() when it cannot be read; relative paths are taken from
    the folder of relative_to (the slide or cea file that names it), then from the working folder."""
    candidates = [path]
    if relative_to and not os.path.isabs(path):
        candidates.insert(0, os.path.join(os.path.dirname(os.path.abspath(relative_to)), path))
    for p in candidates:
        try:
            with h5py.File(p, "r") as f:
                for g in f["bodies"].values():
                    return Units.parse(g.attrs.get("units", ""))
        except (OSError, KeyError):
            continue
    return Units()


# ----------------------------------------------------------------------------------------------------------- modes
@dataclass
class Modes:
    """A modes file (`vicms modes`): frequencies, eigenvalues ((rad/s)^2), the mesh and the mass-normalized shapes
    (modes x nodes x 3)."""
    path: str
    frequencies_hz: np.ndarray
    eigenvalues: np.ndarray
    coordinates: np.ndarray
    node_ids: np.ndarray
    shapes: np.ndarray
    attrs: dict


def read_modes(path, num=None):
    """A modes file; num: only the first num shapes (all by default)."""
    with _open(path, "vicms-modes") as f:
        fr = np.asarray(_need(f, path, "frequencies_hz")[()], dtype=float)
        n = len(fr) if num is None else min(num, len(fr))
        shapes = np.array([f[f"modes/{k + 1}"][()] for k in range(n)], dtype=float)
        return Modes(path=os.fspath(path), frequencies_hz=fr,
                     eigenvalues=np.asarray(f["eigenvalues"][()], dtype=float) if "eigenvalues" in f else (2 * np.pi * fr) ** 2,
                     coordinates=np.asarray(_need(f, path, "mesh/coordinates")[()], dtype=float),
                     node_ids=np.asarray(f["mesh/node_ids"][()]) if "mesh/node_ids" in f else np.arange(0),
                     shapes=shapes.reshape(n, -1, 3) if n else np.zeros((0, 0, 3)), attrs=_attrs(f))


# --------------------------------------------------------------------------------------------------------- results
@dataclass
class Case:
    """One finished time-stepping case of a results file (cases/<k>): its time series and attributes. velocities: the
    outputs' velocities at the same levels (an empty table for files written before they were recorded)."""
    index: int
    t: np.ndarray
    outputs: Table
    gaps: Table
    forces: Table
    energy: Table
    frequency: np.ndarray
    envelope: Table
    attrs: dict
    velocities: Table = None


@dataclass
class Branch:
    """One harmonic balance branch (summary/hb, or cases/<k> of a `vicms hb` case set): per point the frequency, the
    amplitude, min, max, mean of each output (points x outputs, Table), the harmonics, the contact fractions and forces,
    the stability (stable 1, 0, -1 not computed), the largest multiplier and the kind bits (1 turning point)."""
    index: int
    frequency_hz: np.ndarray
    amplitude: Table
    min: Table
    max: Table
    mean: Table
    harmonics: np.ndarray
    closed_fraction: np.ndarray
    slip_fraction: np.ndarray
    force_max: np.ndarray
    iterations: np.ndarray
    stable: np.ndarray
    multiplier: np.ndarray
    stability_method: np.ndarray
    kind: np.ndarray
    attrs: dict

    @property
    def outputs(self):
        return self.amplitude.columns

    @property
    def turning_points(self):
        return np.nonzero(self.kind & 1)[0]

    def harmonic(self, output, h):
        """The complex amplitude a_h - i b_h of harmonic h of an output (y = Re(z e^{i h Omega t}) + ...), per point."""
        o = self.outputs.index(output) if isinstance(output, str) else output
        H = int(self.attrs.get("harmonics_H", 0))
        c = self.harmonics[:, o * (2 * H + 1):(o + 1) * (2 * H + 1)]
        if h == 0:
            return c[:, 0].astype(complex)
        return c[:, 2 * h - 1] - 1j * c[:, 2 * h]


class Results:
    """A results file (`vicms simulate`, `vicms run`, `vicms hb`): the case table, statuses, quantities and summaries
    read at once; each case's series or branch read on demand (case(k), branch(k))."""

    def __init__(self, path):
        self.path = os.fspath(path)
        with _open(self.path, "vicms-results") as f:
            self.attrs = _attrs(f)
            self.kind = self.attrs.get("kind", "")
            self.units = Units.parse(f.attrs.get("units", ""))
            self.status = np.asarray(_need(f, self.path, "cases/status")[()]).astype(int).ravel()
            d = _need(f, self.path, "cases/parameters")
            p = np.atleast_2d(np.asarray(d[()], dtype=float))
            if p.shape[0] != len(self.status) and p.shape[1] == len(self.status):
                p = p.T
            self.parameters = Table(p, names(d.attrs.get("columns")) or ["case"])
            self.messages = [text(m) for m in f["cases/message"][()]] if "cases/message" in f else [""] * len(self.status)
            self.quantities = (_table(f["cases/quantities"], units=lambda c: self.units.of(quantity_kind(c)))
                               if "cases/quantities" in f else None)
            self.summary = {}
            if "summary" in f:
                s = f["summary"]
                for name in ("frf", "sweep_up", "sweep_down"):
                    if name in s:
                        self.summary[name] = _table(s[name], ("frequency", "amplitude"),
                                                    units=lambda c: "Hz" if c == "frequency" else self.units.of("length"))
                        self.summary[name].units["output"] = text(s[name].attrs.get("output", ""))
                if "statistics" in s:
                    st = s["statistics"]
                    rows = names(st.attrs.get("rows"))
                    self.summary["statistics"] = {
                        r: dict(zip(names(st.attrs.get("columns")) or STATISTICS_COLUMNS, np.atleast_2d(st[()])[i]))
                        for i, r in enumerate(rows)}
                if "histograms" in s:
                    self.summary["histograms"] = {q: (np.asarray(g["edges"][()], float), np.asarray(g["counts"][()]))
                                                  for q, g in s["histograms"].items() if "edges" in g and "counts" in g}
            self._has_summary_hb = "summary/hb" in f

    @property
    def n_cases(self):
        return len(self.status)

    @property
    def done(self):
        return [k for k in range(self.n_cases) if self.status[k] == 1]

    def counts(self):
        return ", ".join(f"{int(np.sum(self.status == s))} {name}" for s, name in STATUS.items())

    def case(self, k):
        """The time series of done case k (KeyError when the file keeps none for it)."""
        with h5py.File(self.path, "r") as f:
            g = f.get(f"cases/{k}")
            if g is None or "t" not in g:
                raise KeyError(f"{self.path}: case {k} has no time series ({STATUS.get(int(self.status[k]), '?')})")
            u = self.units
            t = np.asarray(g["t"][()], dtype=float).ravel()
            empty = Table(np.zeros((len(t), 0)), [])

            def tab(name, unit, default=None):
                return _table(g[name], default, unit=unit) if name in g and g[name].size else empty
            ecols = ENERGY_COLUMNS[:g["energy"].shape[-1]] if "energy" in g else None  # 7 in files before the numerical one
            return Case(index=k, t=t, outputs=tab("outputs", u.of("length")), gaps=tab("gaps", u.of("length")),
                        forces=tab("forces", u.of("force")), energy=tab("energy", u.of("energy"), ecols),
                        frequency=np.asarray(g["frequency"][()], float).ravel() if "frequency" in g else np.zeros(0),
                        envelope=_table(g["envelope"], ("frequency", "amplitude")) if "envelope" in g else None,
                        attrs=_attrs(g), velocities=tab("velocities", u.of("velocity")))

    def branch(self, k=None):
        """The harmonic balance branch of case k (k None: summary/hb, the branch of a job of one case)."""
        with h5py.File(self.path, "r") as f:
            where = "summary/hb" if k is None else f"cases/{k}"
            g = f.get(where)
            if g is None or "frequency_hz" not in g:
                raise KeyError(f"{self.path}: no harmonic balance branch at {where}")
            outs = names(g.attrs.get("outputs"))
            lu = self.units.of("length")

            def tab(name):
                a = np.asarray(g[name][()], dtype=float)
                a = a.reshape(len(a), -1)
                cols = outs if len(outs) == a.shape[1] else [f"output{j}" for j in range(a.shape[1])]
                return Table(a, cols, {c: lu for c in cols})

            def arr(name, dtype=float):
                return np.asarray(g[name][()], dtype=dtype) if name in g else np.zeros(0, dtype=dtype)
            return Branch(index=-1 if k is None else k, frequency_hz=arr("frequency_hz"), amplitude=tab("amplitude"),
                          min=tab("min"), max=tab("max"), mean=tab("mean"), harmonics=np.atleast_2d(arr("harmonics")),
                          closed_fraction=arr("closed_fraction"), slip_fraction=arr("slip_fraction"),
                          force_max=arr("force_max"), iterations=arr("iterations", int), stable=arr("stable", int),
                          multiplier=arr("multiplier"), stability_method=arr("stability_method", int),
                          kind=arr("kind", int), attrs=_attrs(g))

    def branches(self):
        """Every branch of a `vicms hb` file: [summary/hb] for a job of one case, else each case's that holds one."""
        if self._has_summary_hb:
            return [self.branch()]
        out = []
        with h5py.File(self.path, "r") as f:
            have = [k for k in range(self.n_cases) if f"cases/{k}/frequency_hz" in f and len(f[f"cases/{k}/frequency_hz"])]
        for k in have:
            out.append(self.branch(k))
        return out


def read_results(path):
    """A results file of `vicms simulate`, `vicms run` or `vicms hb` (kind "hb")."""
    return Results(path)


def read_hb(path):
    """A `vicms hb` results file: its branches (a list of Branch; one for a job of one case)."""
    r = Results(path)
    b = r.branches()
    if not b:
        raise FileFormatError(f"{r.path}: no harmonic balance branch (kind = {r.kind!r}; a vicms hb file has summary/hb "
                              "or cases/<k>/frequency_hz)")
    return b


# ----------------------------------------------------------------------------------------------------------- slide
@dataclass
class Slide:
    """A slide history file (`vicms slide`): t (records), the body outputs (Table, columns BODY/NAME), the contact
    record per slave node (dict of records x slaves arrays: status 0 off 1 open 2 stick 3 slip, segment, xi, gap,
    normal, tangential, slip_velocity, position), the energy terms (Table), the random force, the attributes, and the
    units of the bodies file it names."""
    path: str
    t: np.ndarray
    outputs: Table
    contact: dict
    energy: Table
    force: np.ndarray
    attrs: dict
    units: Units


def read_slide(path):
    with _open(path, "vicms-slide") as f:
        attrs = _attrs(f)
        units = bodies_units(attrs.get("bodies_file", ""), relative_to=path)
        onames = [text(x) for x in f["output_names"][()]] if "output_names" in f else []
        out = np.asarray(f["outputs"][()], dtype=float) if "outputs" in f else np.zeros((0, 0))
        out = out.reshape(len(out), -1)
        if len(onames) != out.shape[1]:
            onames = [f"output{j}" for j in range(out.shape[1])]
        contact = {k: np.asarray(d[()]) for k, d in f["contact"].items()} if "contact" in f else {}
        energy = (_table(f["energy"], ("kinetic", "potential", "damping", "load_work", "drive_work", "contact_work",
                                       "initial"), unit=units.of("energy")) if "energy" in f else None)
        return Slide(path=os.fspath(path), t=np.asarray(_need(f, path, "t")[()], float).ravel(),
                     outputs=Table(out, onames, {c: units.of("length") for c in onames}), contact=contact, energy=energy,
                     force=np.asarray(f["force"][()], float) if "force" in f else np.zeros((0, 0)), attrs=attrs, units=units)


# ------------------------------------------------------------------------------------------------------------- cea
@dataclass
class CEA:
    """A cea results file (`vicms cea`): positions s (P), the coupled eigenvalues' frequencies and real parts (P x N),
    the FRF map when computed (frf dict: frequencies_hz, inputs, outputs, H (P x F x O x I complex), quantity), the
    attributes and the bodies' units."""
    path: str
    positions: np.ndarray
    frequency_hz: np.ndarray
    real: np.ndarray
    frf: dict
    attrs: dict
    units: Units


def read_cea(path):
    with _open(path, "vicms-cea") as f:
        attrs = _attrs(f)
        s = np.asarray(_need(f, path, "positions")[()], float)[:, 0]
        frf = None
        if "frf" in f:
            ff = np.asarray(f["frf/frequencies_hz"][()], float).ravel()
            ins, outs = [text(x) for x in f["frf/inputs"][()]], [text(x) for x in f["frf/outputs"][()]]
            H = f["frf/H_re"][()] + 1j * f["frf/H_im"][()]
            frf = dict(frequencies_hz=ff, inputs=ins, outputs=outs, H=H.reshape(len(s), len(ff), len(outs), len(ins)),
                       quantity=text(f["frf"].attrs.get("quantity", "displacement")))
        return CEA(path=os.fspath(path), positions=s, frequency_hz=np.asarray(f["frequency_hz"][()], float),
                   real=np.asarray(f["real"][()], float), frf=frf, attrs=attrs,
                   units=bodies_units(attrs.get("bodies_file", ""), relative_to=path))


READERS = {"vicms-rom": read_rom, "vicms-bodies": read_bodies, "vicms-modes": read_modes, "vicms-results": read_results,
           "vicms-slide": read_slide, "vicms-cea": read_cea}


def read(path):
    """Any vicms file, by its format attribute (a `vicms fields` series too: vicms.fields.read_fields)."""
    with _open(path, tuple(READERS) + ("vicms-fields",)) as f:
        fmt = text(f.attrs["format"])
    if fmt == "vicms-fields":
        from .fields import read_fields
        return read_fields(path)
    return READERS[fmt](path)
