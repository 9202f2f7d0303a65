#!/usr/bin/env python3
"""An independent reference for `vicms cea`: the complex eigenvalues along the sliding path recomputed with numpy from the
bodies file alone (seed 003 Eqs. 8-16, 36-44: node-to-segment rows, SVD null spaces, numpy eig of (A - sigma B)^-1 B for the
first-order pencil, sigma = -100 1/s),
compared with the results file.

usage: cea_reference.py BODIES.h5 CEA.h5 SLAVE_BODY SLAVE_NODE MASTER_BODY HOLD_BODY MU forward|backward
Prints the largest differences and exits 1 when a frequency differs by more than 1e-8 of |lambda|/2pi, a real part by
more than 1e-8 of |lambda| (|lambda| at least 1 1/s), the FRF map (if any) differs from the primal
form L_C (K~ - w^2 M~ + j w C~)^-1 L_E^T by more than 1e-8 of its largest value, or the count of unstable positions differs. Eigenvalues with zero imaginary part
(overdamped) are compared by frequency only: their order among themselves is arbitrary."""
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


cf = h5py.File(cea_file, "r")
pos, freq, real = cf["positions"][()][:, 0], cf["frequency_hz"][()], cf["real"][()]
nm = freq.shape[1]
worst_f = worst_r = 0.0
unstable = 0
for p, s in enumerate(pos):
    BC, BE = rows(s)
    LC, LE = null(BC), null(BE)
    Mt, Ct, Kt = LE.T @ M @ LC, LE.T @ D @ LC, LE.T @ K @ LC
    m = Mt.shape[0]
    # the pencil (A, B) of the first-order form, y = (q, q'): A = [0 I; -K~ -C~], B = [I 0; 0 M~], shifted and inverted:
    # the spectrum spans 5 decades, and eig of M~^-1 A itself loses the lowest frequencies to ~1e-6
    I, Z = np.eye(m), np.zeros((m, m))
    A, B = np.block([[Z, I], [-Kt, -Ct]]), np.block([[I, Z], [Z, Mt]])
    sigma = -100.0
    lam = sigma + 1 / np.linalg.eigvals(np.linalg.solve(A - sigma * B, B))
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
        BC, BE = rows(s)
        LC, LE = null(BC), null(BE)
        Mt, Ct, Kt = LE.T @ M @ LC, LE.T @ D @ LC, LE.T @ K @ LC
        for f, hz in enumerate(ff):
            w = 2 * np.pi * hz
            X = LC @ np.linalg.solve(Kt - w * w * Mt + 1j * w * Ct, LE.T @ np.array(fin).T)
            for o, out in enumerate(fout):
                ref[p, (f * len(fout) + o) * len(fin) : (f * len(fout) + o + 1) * len(fin)] = out @ X
    worst_h = np.max(np.abs(ref - H)) / np.max(np.abs(ref))
    print(f"reference FRF: {len(pos)} positions x {len(ff)} lines x {len(fout)} outputs x {len(fin)} inputs; "
          f"max difference {worst_h:.2e} of max |H|")
got = int(cf.attrs["n_unstable_positions"])
print(f"reference: {len(pos)} positions x {nm} modes, {n} coordinates; max frequency difference {worst_f:.2e} of |lambda|/2pi, "
      f"max real-part difference {worst_r:.2e} of |lambda|; unstable positions {unstable} (file: {got})")
ok = worst_f < 1e-8 and worst_r < 1e-8 and worst_h < 1e-8 and unstable == got
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
