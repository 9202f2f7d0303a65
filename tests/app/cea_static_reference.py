#!/usr/bin/env python3
"""Independent check of `vicms cea -cea_state static` (issue 27) from the bodies file alone.

At each position s of the results file (segment k, xi of the undeformed master chain), the static sliding state is solved
by Newton's method with a central-difference Jacobian of the residual (6 steps from rest; numpy, nothing of vicms's Jacobian) on the unknowns (u, lambda, the held
reactions, delta): K u - f - lambda w(u) - E^T r = 0, the slave on the deformed material point x_Q = (1 - xi) x_T1 + xi x_T2
of segment k (its normal and tangential components), the held coordinates at delta (the slave body's translation along
the drive). w(u) = B_E^T: the slave, T1 and T2 weighted 1, -(1 - xi), -xi times n - d mu t of the deformed segment.
Then the CEA about that state: B_C the gap's row in the deformed frame, B_E = w^T, and the tangent stiffness
K - lambda0 dw/du with dw/du by central differences of w(u), the contact point projected on the deformed segment (so the
lever xi moves with u); null spaces by SVD and the eigenvalues of the first-order pencil (cea_reference.py's method).
When the file has an FRF map, it is checked against the primal form of the same linearisation, H^C = L_C (K~ - w^2 M~ +
j w C~)^-1 L_E^T between the unit vectors named (cea_reference.py's, with K~ = L_E^T (K - lambda0 dw/du) L_C here).
Compares u0, lambda0, the segment's turn, the kept eigenvalues and the FRF with the file; prints the largest differences
and exits non-zero beyond the tolerances (u0 1e-8 of max |u0|, lambda0 1e-8 relative, eigenvalues 1e-6 of |lambda|, the
FRF 1e-6 of max |H| per position).

usage: cea_static_reference.py BODIES CEA SLAVE_BODY SLAVE_NODE MASTER_BODY HOLD_BODY MU forward|backward FX FY
"""
import sys
import h5py
import numpy as np
from scipy.linalg import null_space

bodies_file, cea_file, sbody, snode, mbody, hbody, mu, sliding, fx, fy = sys.argv[1:11]
snode, mu, d, F = int(snode), float(mu), (1.0 if sliding == "forward" else -1.0), np.array([float(fx), float(fy)])

bf = h5py.File(bodies_file, "r")
attr = bf.attrs["bodies"]
names = (attr.decode() if isinstance(attr, bytes) else str(attr)).split(",")
off, n = {}, 0
for b in names:
    off[b] = n
    n += bf[f"bodies/{b}/K"].shape[0]
K, M, D = (np.zeros((n, n)) for _ in range(3))
for b in names:
    o, nb = off[b], bf[f"bodies/{b}/K"].shape[0]
    for A, key in ((K, "K"), (M, "M"), (D, "D")):
        A[o : o + nb, o : o + nb] = bf[f"bodies/{b}/{key}"][()]


tables = {}


def table(b):
    if b not in tables:
        g = bf[f"bodies/{b}/boundary"]
        tables[b] = list(g["node_ids"][()]), g["coords"][()], g["dofs"][()]
    return tables[b]


def gdof(b, j, c):
    dof = table(b)[2][j][c]
    return -1 if dof < 0 else off[b] + dof


sid, _, _ = table(sbody)
sj = sid.index(snode)
mid, mcoord, _ = table(mbody)
arc = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(mcoord[:, :2], axis=0), axis=1))])
hid, _, _ = table(hbody)
hj = [j for j in range(len(hid)) if not (hbody == sbody and hid[j] == snode)]
holds = [gdof(hbody, j, 0) for j in hj]
f = np.zeros(n)
for j in hj:  # the preload, total, split over the held nodes
    for c in range(2):
        if gdof(hbody, j, c) >= 0:
            f[gdof(hbody, j, c)] += F[c] / len(hj)
sdof = [gdof(sbody, sj, c) for c in range(2)]


def node(k, u):
    return np.array([mcoord[k, c] + (u[gdof(mbody, k, c)] if gdof(mbody, k, c) >= 0 else 0.0) for c in range(2)])


def frame(k, u):
    a, b = node(k, u), node(k + 1, u)
    l = np.linalg.norm(b - a)
    t = (b - a) / l
    return a, b, l, t, np.array([-t[1], t[0]])


def scatter(k, xi, vec):
    """The n-vector of vec on the slave, -(1 - xi) vec on T1, -xi vec on T2."""
    out = np.zeros(n)
    for c in range(2):
        for dof, w in ((sdof[c], 1.0), (gdof(mbody, k, c), -(1 - xi)), (gdof(mbody, k + 1, c), -xi)):
            if dof >= 0:
                out[dof] += w * vec[c]
    return out


cf = h5py.File(cea_file, "r")
pos, freq, real = cf["positions"][()][:, 0], cf["frequency_hz"][()], cf["real"][()]
U, lam_f, slope_f = cf["static/u"][()], cf["static/normal_force"][()][:, 0], cf["static/slope"][()][:, 0]
nm = freq.shape[1]
nh = len(holds)
worst = {"u": 0.0, "lambda": 0.0, "slope": 0.0, "eig": 0.0, "gap": 0.0, "frf": 0.0}
frf = "frf" in cf
if frf:
    def unit(spec):
        b, nd, c = spec.decode().rsplit(":", 2) if isinstance(spec, bytes) else spec.rsplit(":", 2)
        v = np.zeros(n)
        v[gdof(b, table(b)[0].index(int(nd)), "xy".index(c))] = 1
        return v

    fin = np.array([unit(x) for x in cf["frf/inputs"][()]]).T
    fout = np.array([unit(x) for x in cf["frf/outputs"][()]])
    ff = cf["frf/frequencies_hz"][()][:, 0]
    Hf = cf["frf/H_re"][()] + 1j * cf["frf/H_im"][()]
largest = -np.inf
for p, s in enumerate(pos):
    k = min(np.searchsorted(arc, s, side="right") - 1, len(arc) - 2)
    xi = (s - arc[k]) / (arc[k + 1] - arc[k])
    X = (1 - xi) * mcoord[k, :2] + xi * mcoord[k + 1, :2]

    def residual(z):
        u, lam, r, delta = z[:n], z[n], z[n + 1 : n + 1 + nh], z[-1]
        a, b, l, t, nv = frame(k, u)
        xC, xQ = X + u[sdof], (1 - xi) * a + xi * b
        R = K @ u - f - lam * scatter(k, xi, nv - d * mu * t)
        R[holds] -= r
        return np.concatenate([R, [nv @ (xC - xQ)], u[holds] - delta, [t @ (xC - xQ)]])

    z = np.zeros(n + nh + 2)
    for _ in range(6):  # Newton with a central-difference Jacobian, from rest
        J = np.zeros((len(z), len(z)))
        for j in range(len(z)):
            h = 1e-7 * max(1.0, abs(z[j]))
            e = np.zeros(len(z))
            e[j] = h
            J[:, j] = (residual(z + e) - residual(z - e)) / (2 * h)
        z = z - np.linalg.solve(J, residual(z))
    u0, lam0 = z[:n], z[n]
    a, b, l, t, nv = frame(k, u0)
    turn = np.arctan2(t[1], t[0]) - np.arctan2(*(mcoord[k + 1, 1::-1] - mcoord[k, 1::-1]))
    worst["u"] = max(worst["u"], np.abs(u0 - U[p]).max() / np.abs(u0).max())
    worst["lambda"] = max(worst["lambda"], abs(lam0 - lam_f[p]) / abs(lam0))
    worst["slope"] = max(worst["slope"], abs(turn - slope_f[p]))
    worst["gap"] = max(worst["gap"], abs(residual(z)[n]))

    def w_of(u):
        """B_E^T in the configuration u, the contact point the slave's projection on the deformed segment k."""
        a, b, l, t, nv = frame(k, u)
        x = ((X + u[sdof]) - a) @ t / l
        return scatter(k, x, nv - d * mu * t)

    G = np.zeros((n, n))
    loc = [q for q in sdof + [gdof(mbody, k, c) for c in range(2)] + [gdof(mbody, k + 1, c) for c in range(2)] if q >= 0]
    for j in loc:
        h = 1e-6
        e = np.zeros(n)
        e[j] = h
        G[:, j] = (w_of(u0 + e) - w_of(u0 - e)) / (2 * h)
    E = np.zeros((nh, n))
    for i, hd in enumerate(holds):
        E[i, hd] = 1
    BC = np.vstack([scatter(k, xi, nv), E])
    BE = np.vstack([w_of(u0), E])
    LC, LE = null_space(BC), null_space(BE)
    Kt = LE.T @ (K - lam0 * G) @ LC
    Mt, Ct = LE.T @ M @ LC, LE.T @ D @ LC
    m = Mt.shape[0]
    I, Z = np.eye(m), np.zeros((m, m))
    A, B = np.block([[Z, I], [-Kt, -Ct]]), np.block([[I, Z], [Z, Mt]])
    sigma = -100.0
    lam = sigma + 1 / np.linalg.eigvals(np.linalg.solve(A - sigma * B, B))
    lam = lam[lam.imag >= -1e-9 * np.abs(lam)]
    lam = lam[np.argsort(lam.imag)][:nm]
    got = real[p] + 2j * np.pi * freq[p]
    ok = ~np.isnan(got)
    for x in got[ok]:
        e = np.min(np.abs(lam - x)) / abs(x)
        if "-v" in sys.argv:
            print(p, x, e)
        worst["eig"] = max(worst["eig"], e)
    largest = max(largest, real[p][ok].max())
    if frf:
        ref = np.concatenate([(fout @ LC @ np.linalg.solve(Kt - (2 * np.pi * hz) ** 2 * Mt + 2j * np.pi * hz * Ct, LE.T @ fin)).ravel()
                              for hz in ff])
        worst["frf"] = max(worst["frf"], np.abs(ref - Hf[p]).max() / np.abs(ref).max())
print(
    "static state against the reference at %d positions: u0 %.1e of max|u0|, lambda0 %.1e relative (%.4f to %.4f N), turn %.1e rad "
    "(%.4f to %.4f rad), gap %.1e; eigenvalues %.1e of |lambda|; largest real part %.4f 1/s%s"
    % (len(pos), worst["u"], worst["lambda"], lam_f.min(), lam_f.max(), worst["slope"], slope_f.min(), slope_f.max(), worst["gap"],
       worst["eig"], largest, "; FRF (%d lines) %.1e of max |H|" % (len(ff), worst["frf"]) if frf else "")
)
if worst["u"] > 1e-8 or worst["lambda"] > 1e-8 or worst["slope"] > 1e-10 or worst["eig"] > 1e-6 or worst["frf"] > 1e-6:
    sys.exit("FAIL beyond the tolerances (u0 1e-8, lambda0 1e-8, turn 1e-10 rad, eigenvalues 1e-6, FRF 1e-6)")
