#!/usr/bin/env python3
"""An independent reference for `vicms cea`: the complex eigenvalues along the sliding path recomputed with numpy from the
bodies file alone (seed 003 Eqs. 8-16, 36-44: node-to-segment rows, SVD null spaces, numpy eig of (A - sigma B)^-1 B for the
first-order pencil, sigma = -100 1/s),
compared with the results file.

usage: cea_reference.py BODIES.h5 CEA.h5 SLAVE_BODY SLAVE_NODE MASTER_BODY HOLD_BODY MU forward|backward
Prints the largest differences and exits 1 when a frequency differs by more than 1e-8 of |lambda|/2pi, a real part by
more than 1e-8 of |lambda| (|lambda| at least 1 1/s), the FRF map (if any) differs from the primal
form L_C (K~ - w^2 M~ + j w C~)^-1 L_E^T by more than 1e-8 of its largest value, or the count of unstable positions differs. Eigenvalues with zero imaginary part
(overdamped) are compared by frequency only: their order among themselves is arbitrary.
The eigenvectors (if the file has /vectors): which modes have one (index against -cea_vectors unstable|all); each u against
numpy's (the eigenvector (q, lambda q) of the same pencil by inverse iteration from numpy's nearest eigenvalue, mapped by
u = L_C q with the SVD basis):
the sine of the angle between them <= 1e-8; the residual of seed 003 Eq. 12, |L_E^T (lambda^2 M + lambda C + K) u| /
(|L_E|_F (|lambda|^2 |M|_F + |lambda| |C|_F + |K|_F)) <= 1e-12, |B_C u| <= 1e-12; the documented normalisation (|u| = 1,
w^T u real > 0, w_i = frac((i + 1)(sqrt(5) - 1)/2)) to 1e-13; and the per-body boundary-node displacements equal to the
entries of u they copy (0 where clamped), with the bodies' node ids and coordinates."""
import sys
import h5py
import numpy as np

bodies_file, cea_file, sbody, snode, mbody, hbody, mu, sliding = sys.argv[1:9]
snode, mu, d = int(snode), float(mu), (1.0 if sliding == "forward" else -1.0)

bf = h5py.File(bodies_file, "r")
names = bf.attrs["bodies"].decode().split(",") if isinstance(bf.attrs["bodies"], bytes) else str(bf.attrs["bodies"]).split(",")
off, n = {}, 0
for b in names:
    off[b] = n
    n += bf[f"bodies/{b}/K"].shape[0]
K, M, D = (np.zeros((n, n)) for _ in range(3))
for b in names:
    o, nb = off[b], bf[f"bodies/{b}/K"].shape[0]
    for A, key in ((K, "K"), (M, "M"), (D, "D")):
        A[o : o + nb, o : o + nb] = bf[f"bodies/{b}/{key}"][()]


def table(b):
    g = bf[f"bodies/{b}/boundary"]
    return list(g["node_ids"][()]), g["coords"][()], g["dofs"][()]


def gdof(b, j, c):
    dof = table(b)[2][j][c]
    return -1 if dof < 0 else off[b] + dof


sid, scoord, _ = table(sbody)
sj = sid.index(snode)
mid, mcoord, _ = table(mbody)
arc = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(mcoord[:, :2], axis=0), axis=1))])
hid, _, _ = table(hbody)
holds = [gdof(hbody, j, 0) for j in range(len(hid)) if not (hbody == sbody and hid[j] == snode)]


def rows(s):
    k = min(np.searchsorted(arc, s, side="right") - 1, len(arc) - 2)
    l = arc[k + 1] - arc[k]
    xi = (s - arc[k]) / l
    t = (mcoord[k + 1, :2] - mcoord[k, :2]) / l
    nv = np.array([-t[1], t[0]])
    BN, BT = np.zeros(n), np.zeros(n)
    for vec, B in ((nv, BN), (t, BT)):
        for c in range(2):
            for dof, w in ((gdof(sbody, sj, c), 1.0), (gdof(mbody, k, c), -(1 - xi)), (gdof(mbody, k + 1, c), -xi)):
                if dof >= 0:
                    B[dof] += w * vec[c]
    E = np.zeros((len(holds), n))
    for i, h in enumerate(holds):
        E[i, h] = 1
    return np.vstack([BN, E]), np.vstack([BN - d * mu * BT, E])


def null(B):
    _, sv, vt = np.linalg.svd(B)
    return vt[len(sv) :].T


def primal(s):
    """The primal assembly at position s (Eqs. 10, 14): B_C, the null spaces L_C, L_E by SVD and M~, C~, K~."""
    BC, BE = rows(s)
    LC, LE = null(BC), null(BE)
    return BC, LC, LE, LE.T @ M @ LC, LE.T @ D @ LC, LE.T @ K @ LC


def pencil(Mt, Ct, Kt):
    """The pencil (A, B) of the first-order form, y = (q, q'): A = [0 I; -K~ -C~], B = [I 0; 0 M~], and all its eigenvalues
    by eig of the shifted inverse (A - sigma B)^-1 B, sigma = -100 1/s: the spectrum spans 5 decades, and eig of M~^-1 A
    itself loses the lowest frequencies to ~1e-6."""
    m = Mt.shape[0]
    I, Z = np.eye(m), np.zeros((m, m))
    A, B = np.block([[Z, I], [-Kt, -Ct]]), np.block([[I, Z], [Z, Mt]])
    sigma = -100.0
    return A, B, sigma + 1 / np.linalg.eigvals(np.linalg.solve(A - sigma * B, B))


cf = h5py.File(cea_file, "r")
pos, freq, real = cf["positions"][()][:, 0], cf["frequency_hz"][()], cf["real"][()]
nm = freq.shape[1]
worst_f = worst_r = 0.0
unstable = 0
for p, s in enumerate(pos):
    lam = pencil(*primal(s)[3:])[2]
    lam = lam[lam.imag >= 0]
    lam = lam[np.argsort(lam.imag, kind="stable")][:nm]
    unstable += bool((lam.real > 0).any())
    f_ref = lam.imag / (2 * np.pi)
    worst_f = max(worst_f, np.max(np.abs(f_ref - freq[p, : len(lam)]) / np.maximum(np.abs(lam) / (2 * np.pi), 1.0)))
    osc = lam.imag > 0
    if osc.any():
        err = np.abs(lam.real[osc] - real[p, : len(lam)][osc]) / np.maximum(np.abs(lam[osc]), 1.0)
        worst_r = max(worst_r, err.max())
# the FRF map (Eq. 45) against the primal form: H^C = L_C (K~ - w^2 M~ + j w C~)^-1 L_E^T between the unit vectors named
worst_h = 0.0
if "frf" in cf:
    def unit(spec):
        b, node, c = spec.decode().rsplit(":", 2) if isinstance(spec, bytes) else spec.rsplit(":", 2)
        v = np.zeros(n)
        v[gdof(b, table(b)[0].index(int(node)), "xy".index(c))] = 1
        return v

    fin = [unit(x) for x in cf["frf/inputs"][()]]
    fout = [unit(x) for x in cf["frf/outputs"][()]]
    ff = cf["frf/frequencies_hz"][()][:, 0]
    H = cf["frf/H_re"][()] + 1j * cf["frf/H_im"][()]
    ref = np.zeros_like(H)
    for p, s in enumerate(pos):
        _, LC, LE, Mt, Ct, Kt = primal(s)
        for f, hz in enumerate(ff):
            w = 2 * np.pi * hz
            X = LC @ np.linalg.solve(Kt - w * w * Mt + 1j * w * Ct, LE.T @ np.array(fin).T)
            for o, out in enumerate(fout):
                ref[p, (f * len(fout) + o) * len(fin) : (f * len(fout) + o + 1) * len(fin)] = out @ X
    worst_h = np.max(np.abs(ref - H)) / np.max(np.abs(ref))
    print(f"reference FRF: {len(pos)} positions x {len(ff)} lines x {len(fout)} outputs x {len(fin)} inputs; "
          f"max difference {worst_h:.2e} of max |H|")
# the eigenvectors
vec_ok, vec_line = True, ""
if "vectors" in cf:
    index, U = cf["vectors/index"][()], cf["vectors/re"][()] + 1j * cf["vectors/im"][()]
    which = cf["vectors"].attrs["which"]
    which = which.decode() if isinstance(which, bytes) else str(which)
    want = real > 0 if which == "unstable" else ~np.isnan(real)
    rows_ok = np.array_equal(index >= 0, want) and np.array_equal(index[index >= 0], np.arange(U.shape[0])) and U.shape[1] == n
    w = np.mod(np.arange(1, n + 1) * 0.6180339887498949, 1.0)
    nM, nC, nK = (np.linalg.norm(X) for X in (M, D, K))
    worst_a = worst_res = worst_bc = worst_norm = worst_d = 0.0
    margin, last = 1.0, -1
    for p, j in np.argwhere(index >= 0):
        u, lam_f = U[index[p, j]], real[p, j] + 2j * np.pi * freq[p, j]
        if p != last:  # the assembly and numpy's eigenvalues at this position, as above
            BC, LC, LE, Mt, Ct, Kt = primal(pos[p])
            A, B, lam = pencil(Mt, Ct, Kt)
            m, last = Mt.shape[0], p
        # inverse iteration on the pencil with numpy's nearest eigenvalue: the eigenvector y = (q, lambda q) to ~1e-11 for
        # all modes (eig's vectors of the shifted inverse lose the overdamped ones, lambda ~ -1e7, to ~1e-7)
        ln, y = lam[np.argmin(np.abs(lam - lam_f))], np.ones(2 * m)
        for _ in range(3):
            y = np.linalg.solve(A - ln * B, B @ y)
            y = y / np.linalg.norm(y)
        ur = LC @ y[:m]
        ur = ur / np.linalg.norm(ur)
        worst_a = max(worst_a, np.linalg.norm(u - ur * (ur.conj() @ u)) / np.linalg.norm(u))
        Zu = LE.T @ ((lam_f**2) * (M @ u) + lam_f * (D @ u) + K @ u)
        worst_res = max(worst_res, np.linalg.norm(Zu) / (np.linalg.norm(LE) * (abs(lam_f) ** 2 * nM + abs(lam_f) * nC + nK)))
        worst_bc = max(worst_bc, np.abs(BC @ u).max())
        z, za = w @ u, w @ np.abs(u)
        worst_norm = max(worst_norm, abs(np.linalg.norm(u) - 1), abs(z.imag) / za if z.real > 0 else 1.0)
        margin = min(margin, z.real / za)
        zr = w @ ur  # numpy's vector normalised the same way
        worst_d = max(worst_d, np.abs(u - ur * abs(zr) / zr).max())
    # the per-body boundary-node displacements: copies of entries of u, 0 where clamped; the bodies' ids and coordinates
    body_ok = True
    for b in names:
        ids, coords, dofs = table(b)
        g = cf[f"vectors/bodies/{b}"]
        cols = np.array([[off[b] + d if d >= 0 else -1 for d in row[:2]] for row in dofs]).ravel()
        ref_b = np.where(cols >= 0, U[:, np.maximum(cols, 0)], 0)
        body_ok &= np.array_equal(g["u_re"][()], ref_b.real) and np.array_equal(g["u_im"][()], ref_b.imag)
        body_ok &= np.array_equal(g["node_ids"][()], np.array(ids)) and np.array_equal(g["coords"][()], coords[:, :2])
    vec_ok = rows_ok and body_ok and worst_a < 1e-8 and worst_res < 1e-12 and worst_bc < 1e-12 and worst_norm < 1e-13
    vec_line = (f"reference vectors ({which}): {U.shape[0]} modes at {int((index >= 0).any(axis=1).sum())} positions, rows "
                f"{'as selected' if rows_ok else 'NOT as selected'}; angle to numpy's max {worst_a:.2e} (sine), residual of Eq. 12 "
                f"max {worst_res:.2e}, |B_C u| max {worst_bc:.2e}, normalisation max {worst_norm:.2e} (phase margin {margin:.2e}); "
                f"numpy's normalised the same way: max difference {worst_d:.2e}; per-body displacements {'exact' if body_ok else 'DIFFER'}")
    print(vec_line)
got = int(cf.attrs["n_unstable_positions"])
print(f"reference: {len(pos)} positions x {nm} modes, {n} coordinates; max frequency difference {worst_f:.2e} of |lambda|/2pi, "
      f"max real-part difference {worst_r:.2e} of |lambda|; unstable positions {unstable} (file: {got})")
ok = worst_f < 1e-8 and worst_r < 1e-8 and worst_h < 1e-8 and unstable == got and vec_ok
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
