#!/usr/bin/env python3
"""Checks of the floating-frame inertia invariants (group /frame of a ROM file, docs/frame.md) against closed forms and
against each other, independently of vicms (tests/app/frame.sh).

    frame_check.py beam ROM L H          a CB ROM of the planar cantilever [0,L] x [-H/2,H/2], clamped at x = 0, whose
                                         boundary is the tip's neutral-axis node in x: the rigid-body invariants exact, the
                                         first fixed-interface mode (the cantilever's first bending mode: the boundary
                                         constraint is not loaded by a mode antisymmetric in y) against Euler-Bernoulli
    frame_check.py box ROM LX LY LZ RHO [bending]
                                         the spatial rigid-body invariants of the box [0,LX]x[0,LY]x[0,LZ], and the trace;
                                         bending: a cantilever along x whose first two modes bend it in z and y
    frame_check.py gravity ROM AXIS      int rho Phi_k^AXIS equal to the load 'gravity' of -cms_gravity = unit vector AXIS
                                         (lumped mass: the assembled M then has every node's mass)
    frame_check.py rotated ROM ROM2 DEG  ROM2 is ROM's body turned by DEG about z (contact frames turned with it): the
                                         invariants are tensors, equal to ROM's turned (columns' signs aside)
    frame_check.py same ROM ROM2         the same invariants to 1e-10 (1, 2, 3 ranks)

Prints one line per check, "ok" or "FAIL", and exits 1 on any failure.
"""
import sys

import h5py
import numpy as np
from scipy.optimize import brentq

failed = False


def check(what, got, expected, tol, scale=None):
    """|got - expected| <= tol * scale (scale: |expected| by default, elementwise max for arrays)."""
    global failed
    got, expected = np.asarray(got, float), np.asarray(expected, float)
    if scale is None:
        scale = max(np.abs(expected).max(), 1e-300)
    err = np.abs(got - expected).max() / scale
    ok = err <= tol
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {what}: relative error {err:.3e} (tolerance {tol:.0e})"
          + (f"; got {np.ravel(got)[:4]}, expected {np.ravel(expected)[:4]}" if not ok or got.size == 1 else ""))


def load(path):
    with h5py.File(path, "r") as f:
        fr = f["frame"]
        d, n = int(fr.attrs["dim"]), int(fr.attrs["n"])
        inv = {
            "dim": d, "n": n, "nb": int(f.attrs["n_boundary"]),
            "mass": fr["mass"][0],
            "first": fr["first_moment"][()],
            "second": fr["second_moment"][()],
            "mode": fr["mode_moment"][()],  # [j, k]
            "pos": fr["position_mode"][()].reshape(d, d, n),  # [i, j, k]
            "mm": fr["mode_mode"][()].reshape(d, d, n, n),  # [i, j, k, l]
            "M": f["M"][()],
            "loads": {k: f["loads"][k][()] for k in f["loads"]},
            "units": {k: (lambda u: u.decode() if isinstance(u, bytes) else u)(fr[k].attrs["units"]) for k in fr},
        }
    return inv


def trace(inv):
    # int rho Phi_k . Phi_l is the parent's M projected on the basis: the ROM's M for a mass-carrying method
    check("sum_i int rho Phi_k^i Phi_l^i = M", sum(inv["mm"][i, i] for i in range(inv["dim"])), inv["M"], 1e-12)


def beam(path, L, H):
    inv = load(path)
    m, nb = inv["mass"], inv["nb"]
    rho_t = m / (L * H)
    check("mass", m, rho_t * L * H, 1e-12)
    check("first moment (m L/2, 0)", inv["first"], [m * L / 2, 0], 1e-12, m * L)
    check("second moment (m L^2/3, m H^2/12, 0)", inv["second"], [[m * L**2 / 3, 0], [0, m * H**2 / 12]], 1e-12, m * L**2)
    check("inertia about the end I_zz = m (L^2/3 + H^2/12)", inv["second"][0, 0] + inv["second"][1, 1], m * (L**2 / 3 + H**2 / 12), 1e-12)
    trace(inv)
    # the cantilever's first bending mode, mass-normalized: Phi^y = phi(x) / sqrt(m) with int_0^L phi^2 = L,
    # int phi = 2 sigma L / (beta L), int x phi = 2 L^2 / (beta L)^2 (from phi'''' = beta^4 phi and the end conditions)
    bl = brentq(lambda b: np.cosh(b) * np.cos(b) + 1, 1.5, 2.5)
    sigma = (np.cosh(bl) + np.cos(bl)) / (np.sinh(bl) + np.sin(bl))
    k = nb
    s = np.sign(inv["mode"][1, k])
    # discretisation (40 x 4 CPS4) and the plane body's shear and rotary inertia, of order (H/L)^2: measured 1.7e-4, 4.1e-4
    check("first bending mode: int rho Phi^y = sqrt(m) 2 sigma/(beta L)", s * inv["mode"][1, k], np.sqrt(m) * 2 * sigma / bl, 1e-3)
    check("first bending mode: int rho x Phi^y = sqrt(m) L 2/(beta L)^2", s * inv["pos"][0, 1, k], np.sqrt(m) * L * 2 / bl**2, 1e-3)
    check("first bending mode: int rho Phi^x = 0 (antisymmetric in y)", inv["mode"][0, k], 0, 1e-12, np.sqrt(m))
    # cross-sections turn with the slope: Phi^x = -y phi'(x)/sqrt(m), int rho y Phi^x = -sqrt(m) H^2 phi(L)/(12 L), phi(L) = 2
    check("first bending mode: int rho y Phi^x = -sqrt(m) H^2/(6 L)", s * inv["pos"][1, 0, k], -np.sqrt(m) * H**2 / (6 * L), 2e-2)
    # seed 001 Eq. (140): I_4 = int rho u0^T I~ Phi = int rho (x Phi^y - y Phi^x), the rotation-elastic coupling
    check("seed 001 I_4 of the first mode", s * (inv["pos"][0, 1, k] - inv["pos"][1, 0, k]),
          np.sqrt(m) * (L * 2 / bl**2 + H**2 / (6 * L)), 1e-3)
    mm = inv["mm"]
    check("int rho Phi_k^x Phi_l^y = int rho Phi_l^y Phi_k^x (the stored symmetry)", mm[0, 1], mm[1, 0].T, 1e-12, np.abs(mm).max())
    units = {"mass": "M", "first_moment": "M L", "second_moment": "M L^2", "mode_moment": "M L / [q_k]",
             "position_mode": "M L^2 / [q_k]", "mode_mode": "M L^2 / ([q_k][q_l])"}
    global failed
    if inv["units"] != units:
        print(f"FAIL units attributes {inv['units']}")
        failed = True
    else:
        print("ok   units attributes on the six datasets")


def box(path, lx, ly, lz, rho, bending=False):
    inv = load(path)
    m = rho * lx * ly * lz
    lens = np.array([lx, ly, lz])
    check("mass rho LX LY LZ", inv["mass"], m, 1e-12)
    check("first moment m (LX, LY, LZ)/2", inv["first"], m * lens / 2, 1e-12)
    J = m * np.outer(lens, lens) / 4
    J[np.diag_indices(3)] = m * lens**2 / 3
    check("second moment: m L_i^2/3, m L_i L_j/4", inv["second"], J, 1e-12)
    trace(inv)
    if bending:
        # a cantilever along x clamped at x = 0, boundary its tip's centre in x: the first two fixed-interface modes bend
        # it in z (the thin side) and in y, each an Euler-Bernoulli first mode (measured within 8.5e-4 with 40 x 2 x 2 C3D8)
        bl = brentq(lambda b: np.cosh(b) * np.cos(b) + 1, 1.5, 2.5)
        sigma = (np.cosh(bl) + np.cos(bl)) / (np.sinh(bl) + np.sin(bl))
        nb = inv["nb"]
        for k, axis in ((nb, 2), (nb + 1, 1)):
            c = "xyz"[axis]
            s = np.sign(inv["mode"][axis, k])
            check(f"bending in {c}: int rho Phi^{c} = sqrt(m) 2 sigma/(beta L)", s * inv["mode"][axis, k], np.sqrt(m) * 2 * sigma / bl, 2e-3)
            check(f"bending in {c}: int rho x Phi^{c} = sqrt(m) L 2/(beta L)^2", s * inv["pos"][0, axis, k], np.sqrt(m) * lx * 2 / bl**2,
                  2e-3)
            check(f"bending in {c}: int rho Phi in the two other directions = 0", np.delete(inv["mode"][:, k], axis), 0, 1e-9, np.sqrt(m))


def gravity(path, axis):
    inv = load(path)
    j = "xyz".index(axis)
    check(f"int rho Phi^{axis} = loads/gravity (unit g along {axis}, lumped mass)", inv["mode"][j], inv["loads"]["gravity"], 1e-12)


def rotated(path, path2, deg):
    a, b = load(path), load(path2)
    t = np.radians(deg)
    R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    check("mass unchanged", b["mass"], a["mass"], 1e-12)
    check("first moment turned", b["first"], R @ a["first"], 1e-12, a["mass"])
    check("second moment turned", b["second"], R @ a["second"] @ R.T, 1e-12, np.abs(a["second"]).max())
    mode = R @ a["mode"]
    pos = np.einsum("ia,jb,abk->ijk", R, R, a["pos"])
    # a component mode's sign follows vicms's convention (weights per mesh component), which the turn may flip
    sig = np.ones(a["n"])
    for k in range(a["n"]):
        v, w = np.concatenate([mode[:, k], pos[:, :, k].ravel()]), np.concatenate([b["mode"][:, k], b["pos"][:, :, k].ravel()])
        sig[k] = np.sign(v @ w) or 1.0
    check("mode moments turned", b["mode"], mode * sig, 1e-9, np.abs(mode).max())
    check("position-mode integrals turned", b["pos"], pos * sig, 1e-9, np.abs(pos).max())
    mm = np.einsum("ia,jb,abkl->ijkl", R, R, a["mm"]) * np.outer(sig, sig)
    check("mode-mode integrals turned", b["mm"], mm, 1e-9, np.abs(mm).max())
    # seed 001's S~_kl = int rho Phi_k^T I~ Phi_l (Eq. 140) does not change with the turn
    st_a = a["mm"][0, 1] - a["mm"][1, 0]
    st_b = (b["mm"][0, 1] - b["mm"][1, 0]) * np.outer(sig, sig)
    check("seed 001 S~ (int rho Phi_k x Phi_l) invariant", st_b, st_a, 1e-9, np.abs(a["mm"]).max())


def same(path, path2):
    a, b = load(path), load(path2)
    for k in ("mass", "first", "second", "mode", "pos", "mm"):
        check(f"{k} equal", b[k], a[k], 1e-10, max(np.abs(a[k]).max(), 1e-300))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "beam":
        beam(args[0], float(args[1]), float(args[2]))
    elif cmd == "box":
        box(args[0], *map(float, args[1:5]), bending=args[5:6] == ["bending"])
    elif cmd == "gravity":
        gravity(args[0], args[1])
    elif cmd == "rotated":
        rotated(args[0], args[1], float(args[2]))
    elif cmd == "same":
        same(args[0], args[1])
    else:
        sys.exit(f"unknown check {cmd}")
    sys.exit(1 if failed else 0)
