"""Write vicms "user ROMs": ROM files (docs/user_rom.md) made from your own matrices instead of a vicms reduction,
including frictional contacts.

    write_user_rom(path, K, M, D, contact_dims=[2], loads={...}, outputs={...}, massless=True)   # the matrices as they are
    UserROM()                                                                                    # or built coordinate by coordinate

The first sum(contact_dims) coordinates of q are the contact coordinates, contact after contact, normal first then the
tangents: the gap of contact j is q[offset_j] + g0 (g0 from -contact_gap and friends).

A frictional contact (a Coulomb slider) is a 2D (or 3D) contact: its normal coordinate carries a normal stiffness kn to
the ground and is pressed shut by the case's preload p (-contact_preload p, -contact_gap 0), so that its normal force is N
= p as long as nothing else loads the normal row; its tangential coordinate is the slider's position, which sticks while
the tangential force is below mu N (-contact_mu mu) and slips at mu N otherwise. kn only keeps the contact rows of K
invertible (the leapfrog and the harmonic balance's condensation need it) and sets the default dynamic Lagrangian
parameter of `vicms hb`; friction_options(mu, N) gives the case options that make the slider limit mu N.
"""
import numpy as np
import h5py

FORMAT_VERSION = "0.1.0"


def write_user_rom(path, K, M, D=None, contact_dims=(), loads=None, outputs=None, shapes=None, massless=False, units="",
                   frequencies_hz=None, contact_kinds=None):
    """Write K, M, D (n x n) as a user ROM (method "user", or "user_massless" when massless: the first B rows and
    columns of M zero). contact_kinds: per contact "unilateral" (a gap, the default) or "bilateral" (the row
    q[offset_j] = 0 held at every instant, dimension 1); written as contact/kinds only when a contact is bilateral."""
    K = np.asarray(K, dtype=float)
    M = np.asarray(M, dtype=float)
    n = K.shape[0]
    D = np.zeros((n, n)) if D is None else np.asarray(D, dtype=float)
    nb = int(sum(contact_dims))
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "vicms-rom"
        f.attrs["version"] = FORMAT_VERSION
        f.attrs["method"] = "user_massless" if massless else "user"
        f.attrs["massless"] = 1 if massless else 0
        f.attrs["n_boundary"] = nb
        f.attrs["n_modes"] = n - nb
        f.attrs["units"] = units
        f["K"] = K
        f["M"] = M
        f["D"] = D
        if frequencies_hz is not None:
            f["frequencies_hz"] = np.asarray(frequencies_hz, dtype=float)
        g = f.create_group("contact")
        if len(contact_dims):
            g["dims"] = np.asarray(contact_dims, dtype=np.int64)
        if contact_kinds is not None and any(k not in ("unilateral", 0) for k in contact_kinds):
            codes = {"unilateral": 0, "bilateral": 1}
            g["kinds"] = np.asarray([codes.get(k, k) for k in contact_kinds], dtype=np.int64)
        for group, vecs in (("loads", loads), ("outputs", outputs), ("shapes", shapes)):
            gg = f.create_group(group)
            for name, v in (vecs or {}).items():
                gg[name] = np.asarray(v, dtype=float)


def springs(n, connections):
    """The stiffness matrix (n x n) of springs: connections holds (i, j, k), a spring k between coordinates i and j, or
    (i, None, k) from coordinate i to the ground. The same assembly gives a damping matrix of dashpots."""
    K = np.zeros((n, n))
    for i, j, k in connections:
        K[i, i] += k
        if j is not None:
            K[j, j] += k
            K[i, j] -= k
            K[j, i] -= k
    return K


def friction_options(mu, normal_force, gap=0.0):
    """The case options that make every frictional contact of a UserROM a Coulomb slider of limit mu * normal_force:
    the contact shut (gap 0), pressed by the preload N, friction coefficient mu."""
    if mu < 0 or normal_force < 0:
        raise ValueError(f"friction_options: mu = {mu}, N = {normal_force}; expected both >= 0")
    return {"contact_gap": gap, "contact_preload": normal_force, "contact_mu": mu}


class UserROM:
    """A user ROM built coordinate by coordinate: contacts first (the file's order), then the other coordinates.

        rom = UserROM(units="SI")
        n, t = rom.contact(dims=2, normal_stiffness=100.0)     # a Coulomb slider: normal and tangential coordinates
        x = rom.coordinate(mass=1.0)                           # a mass
        rom.spring(x, None, k); rom.spring(t, x, kt); rom.dashpot(x, None, c)
        rom.load("drive", {x: 1.0}); rom.output("mass", {x: 1.0})
        rom.write("jenkins.h5")

    Contact coordinates are massless unless given a mass (then every coordinate needs one: method "user", M positive
    definite); with massless contacts the file is "user_massless" (leapfrog, hb)."""

    def __init__(self, units="SI"):
        self.units = units
        self.masses = []
        self.dims = []
        self.kinds = []
        self.stiff = []
        self.damp = []
        self.loads = {}
        self.outputs = {}
        self.names = []

    @property
    def n(self):
        return len(self.masses)

    def contact(self, dims=1, normal_stiffness=0.0, tangential_stiffness=0.0, kind="unilateral", mass=0.0, name=None):
        """A contact of dims coordinates (normal, then tangents), returned as their indices. normal_stiffness and
        tangential_stiffness: springs from them to the ground (a frictional contact needs kn > 0 unless other springs
        hold its normal row)."""
        if len(self.dims) and sum(self.dims) != self.n or (self.n and not self.dims):
            raise ValueError("UserROM.contact: declare the contacts before the other coordinates (the file puts them first)")
        if dims not in (1, 2, 3):
            raise ValueError(f"UserROM.contact: dims = {dims}, expected 1, 2 or 3")
        first = self.n
        for d in range(dims):
            self.masses.append(float(mass))
            self.names.append(f"{name or 'c%d' % len(self.dims)}_{'ntt'[d]}{'' if d == 0 else d}")
        self.dims.append(dims)
        self.kinds.append(kind)
        if normal_stiffness:
            self.spring(first, None, normal_stiffness)
        if tangential_stiffness:
            for d in range(1, dims):
                self.spring(first + d, None, tangential_stiffness)
        return tuple(range(first, first + dims))

    def coordinate(self, mass, name=None):
        """A coordinate of mass `mass` (not a contact), returned as its index."""
        self.masses.append(float(mass))
        self.names.append(name or f"q{self.n - 1}")
        return self.n - 1

    def spring(self, i, j, k):
        """A spring k between coordinates i and j (j None: to the ground)."""
        self.stiff.append((i, j, float(k)))

    def dashpot(self, i, j, c):
        """A dashpot c between coordinates i and j (j None: to the ground)."""
        self.damp.append((i, j, float(c)))

    def load(self, name, weights):
        """A load vector: {coordinate: force per unit of the load's time function}."""
        self.loads[name] = dict(weights)

    def output(self, name, weights):
        """A recorded output y = sum of weight * q[coordinate]."""
        self.outputs[name] = dict(weights)

    def matrices(self):
        """K, M, D of the coordinates declared so far."""
        return springs(self.n, self.stiff), np.diag(self.masses), springs(self.n, self.damp)

    def _vector(self, weights):
        v = np.zeros(self.n)
        for i, w in weights.items():
            v[i] += w
        return v

    def write(self, path):
        K, M, D = self.matrices()
        nb = sum(self.dims)
        boundary_mass = np.asarray(self.masses[:nb])
        massless = bool(nb) and not boundary_mass.any()
        if not massless and (np.asarray(self.masses) <= 0).any():
            raise ValueError("UserROM.write: with massive contact coordinates every coordinate needs a mass > 0 (method "
                             "user); leave the contacts massless for user_massless")
        write_user_rom(path, K, M, D, contact_dims=self.dims, loads={k: self._vector(v) for k, v in self.loads.items()},
                       outputs={k: self._vector(v) for k, v in self.outputs.items()}, massless=massless, units=self.units,
                       contact_kinds=self.kinds)
        return path


def jenkins(path, m=1.0, k=4 * np.pi ** 2, kt=3 * 4 * np.pi ** 2, c=0.0, normal_stiffness=None, units="SI"):
    """The single-mass oscillator with a Jenkins element (docs/python.md): a mass m on a spring k to the ground and on a
    spring kt in series with a Coulomb slider (the tangential coordinate of a 2D frictional contact, of normal stiffness
    kn = normal_stiffness, default 10 (k + kt)), a dashpot c to the ground, load "drive" and output "mass" on the mass (and "slider", the slider's position). The
    slider's limit is mu N with the case options friction_options(mu, N). Coordinates: normal, slider, mass."""
    rom = UserROM(units=units)
    kn = 10 * (k + kt) if normal_stiffness is None else normal_stiffness
    _, t = rom.contact(dims=2, normal_stiffness=kn, name="slider")
    x = rom.coordinate(m, name="x")
    rom.spring(x, None, k)
    rom.spring(t, x, kt)
    if c:
        rom.dashpot(x, None, c)
    rom.load("drive", {x: 1.0})
    rom.output("mass", {x: 1.0})
    rom.output("slider", {t: 1.0})
    return rom.write(path)


def ball(path, m=1.0, g=10.0):
    """Seed 002 §10.1: q is the height change of the ball's centre; gap = q + (initial gap), -contact_gap 0.801."""
    write_user_rom(path, K=[[0.0]], M=[[m]], contact_dims=[1], loads={"gravity": [-m * g]}, outputs={"y": [1.0]},
                   shapes={"translation_x": [1.0]}, units="SI")


def stop(path, zeta=0.02, state_outputs=False):
    """The stop oscillator of tests/app/hb.sh and docs/hb.md (massless contact coordinate first, then the mass);
    state_outputs: also the outputs q00, q01 (every coordinate: the state of each branch point, for floquet_exact.py)."""
    k1 = 4 * np.pi ** 2
    k2 = 3 * k1
    outputs = {"mass": [0.0, 1.0]}
    if state_outputs:
        outputs.update({"q00": [1.0, 0.0], "q01": [0.0, 1.0]})
    write_user_rom(path, K=[[k2, -k2], [-k2, k1 + k2]], M=[[0.0, 0.0], [0.0, 1.0]],
                   D=[[0.0, 0.0], [0.0, 2 * zeta * 2 * np.pi]], contact_dims=[1], loads={"drive": [0.0, 1.0]},
                   outputs=outputs, massless=True, units="SI", frequencies_hz=[2.0])


def bar(path, E=900.0, rho=1.0, L=10.0, cells=200, area=1.0):
    """Seed 002 §10.3: a free bar along the contact normal, node 0 touches the wall (lumped mass)."""
    n = cells + 1
    h = L / cells
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    k = E * area / h
    for e in range(cells):
        K[e:e + 2, e:e + 2] += k * np.array([[1, -1], [-1, 1]])
        M[e, e] += rho * area * h / 2
        M[e + 1, e + 1] += rho * area * h / 2
    mass = np.diag(M)
    write_user_rom(path, K=K, M=M, contact_dims=[1],
                   outputs={"contact_end": np.eye(n)[0], "far_end": np.eye(n)[-1], "centre_of_mass": mass / mass.sum()},
                   shapes={"translation_x": np.ones(n)}, units="SI")


EXAMPLES = {"ball": ball, "bar": bar, "stop": stop, "jenkins": jenkins}
