#!/usr/bin/env python3
"""The slider-crank of seed 001 with the connecting rod flexible in a floating frame of reference (§3, App. C), its elastic
part a vicms ROM with the frame invariants (`vicms reduce -cms_frame_invariants`, docs/frame.md), solved with SciPy: the
reference for vicms's flexible multibody bodies (issue 23 §4), independent of vicms's own assembly and time stepping.

The mechanism of tests/ref/slider_crank.py (Table 1, gravity along -y) with the clearance too large to touch. The rod's
frame sits at the crank's tip R = l1 e(theta1) turned by theta2 (the ROM's mesh: x along the rod, its clamped nodes at
the frame's origin, seed 001 Eq. 184); a point of the rod is at R + A(theta2) (x + Phi q). The slider is a point mass m3
at the rod's tip P (undeformed (l2, 0) in the frame; its displacement Phi_P q from two ROM output rows); its rotation is
decoupled (pinned at its centre of mass) and stays 0. Coordinates z = (theta1, theta2, q_1..q_n).

With --guide, the clearance c = 0 (seed 001 Fig. 22's bilateral case): the slider on a prismatic guide along x, i.e. the
holonomic constraint y_P(z) = l1 sin theta1 + [A(theta2) (x_P + Phi_P q)]_y = 0 with its multiplier (the guide's normal
force), the accelerations from the bordered system [M c_z^T; c_z 0] and c'' = -2 a c' - a^2 c (Baumgarte, a = 100/s, so
that the integrator's round-off does not drift); the guide's force is written as guide_force.

Kinetic energy T = 1/2 z'^T M(z) z' with the rod's mass matrix of seed 001 Eqs. 126-140 from the invariants of /frame
(m_RR = m I, m_Rtheta = A_theta (I_1 + S q), m_Rf = A S, m_thetatheta = I_2 + 2 I_3 q + q^T m_ff q, m_thetaf = I_4 + q^T S~,
m_ff; R by the crank's angle: dR = l1 e'(theta1) dtheta1), the crank (J1 + m1 l1^2/4) and the slider (m3 J_P^T J_P);
potential V = gravity + 1/2 q^T K q; damping D q'. Lagrange's equations M z'' = -(dM/dt z' - 1/2 z'^T dM/dz z') - dV/dz
- D z', with dM/dz by central differences (exact in q, where M is quadratic; 1e-12 relative in the angles), integrated
by Radau (implicit: the ROM's boundary coordinates are stiff). The energy T + V (without damping) is printed as a check.

    slider_crank_flexible.py ROM.h5 --tip OUT_X,OUT_Y [--guide] [--t-end T] [--dt DT] [--rtol R] [--out FILE.csv]

writes t, theta1, theta2, x, y (the slider's centre), energy (and guide_force) and q_1..q_n at t = 0, DT, ... T.
"""
import argparse
import sys

import h5py
import numpy as np
from scipy.integrate import solve_ivp

from slider_crank import TABLE1, de, e


def rot(t):
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])


def drot(t):
    return np.array([[-np.sin(t), -np.cos(t)], [np.cos(t), -np.sin(t)]])


class FlexibleSliderCrank:
    def __init__(self, rom, tip, p=TABLE1, guide=False):
        self.guide = guide
        with h5py.File(rom, "r") as f:
            if "frame" not in f:
                raise SystemExit(f"{rom} has no group /frame: reduce it with -cms_frame_invariants")
            fr = f["frame"]
            if int(fr.attrs["dim"]) != 2:
                raise SystemExit(f"{rom}: the frame invariants are spatial; this reference is planar")
            n = self.n = int(fr.attrs["n"])
            self.m, self.I1 = fr["mass"][0], fr["first_moment"][()]
            J = fr["second_moment"][()]
            self.I2 = J[0, 0] + J[1, 1]
            self.S = fr["mode_moment"][()]  # 2 x n
            P = fr["position_mode"][()].reshape(2, 2, n)
            self.I3, self.I4 = P[0, 0] + P[1, 1], P[0, 1] - P[1, 0]
            MM = fr["mode_mode"][()].reshape(2, 2, n, n)
            self.mff, self.St = MM[0, 0] + MM[1, 1], MM[0, 1] - MM[1, 0]
            self.K, self.D = f["K"][()], f["D"][()]
            self.PhiP = np.array([f["outputs"][name][()] for name in tip])
        self.p = p
        self.xP = np.array([p["l2"], 0.0])

    def mass(self, z):
        p, n = self.p, self.n
        t1, t2, q = z[0], z[1], z[2:]
        A, At = rot(t2), drot(t2)
        # the rod over (R_x, R_y, theta2, q), then R by theta1
        Mr = np.zeros((3 + n, 3 + n))
        Mr[:2, :2] = self.m * np.eye(2)
        Mr[:2, 2] = Mr[2, :2] = At @ (self.I1 + self.S @ q)
        Mr[:2, 3:] = A @ self.S
        Mr[3:, :2] = Mr[:2, 3:].T
        Mr[2, 2] = self.I2 + 2 * self.I3 @ q + q @ self.mff @ q
        Mr[2, 3:] = Mr[3:, 2] = self.I4 + q @ self.St
        Mr[3:, 3:] = self.mff
        B = np.zeros((3 + n, 2 + n))
        B[:2, 0] = p["l1"] * de(t1)
        B[2:, 1:] = np.eye(1 + n)
        M = B.T @ Mr @ B
        M[0, 0] += p["J1"] + p["m1"] * p["l1"] ** 2 / 4
        JP = np.column_stack([p["l1"] * de(t1), At @ (self.xP + self.PhiP @ q), A @ self.PhiP])
        return M + p["m3"] * JP.T @ JP

    def potential_gradient(self, z):
        p = self.p
        t1, t2, q = z[0], z[1], z[2:]
        A, At = rot(t2), drot(t2)
        g = p["g"]
        grad = np.zeros(2 + self.n)
        grad[0] = g * (p["m1"] / 2 + self.m + p["m3"]) * p["l1"] * np.cos(t1)
        grad[1] = g * ((At @ (self.I1 + self.S @ q))[1] + p["m3"] * (At @ (self.xP + self.PhiP @ q))[1])
        grad[2:] = g * ((A @ self.S)[1] + p["m3"] * (A @ self.PhiP)[1]) + self.K @ q
        return grad

    def potential(self, z):
        p = self.p
        t1, t2, q = z[0], z[1], z[2:]
        A = rot(t2)
        R = p["l1"] * e(t1)
        P = R + A @ (self.xP + self.PhiP @ q)
        rod_y = self.m * R[1] + (A @ (self.I1 + self.S @ q))[1]
        return p["g"] * (p["m1"] * p["l1"] / 2 * np.sin(t1) + rod_y + p["m3"] * P[1]) + 0.5 * q @ self.K @ q

    def guide_terms(self, z, v):
        """The guide's row: c = y_P, its gradient c_z and v^T c_zz v (A'' = -A)."""
        p = self.p
        t1, t2, q, dq = z[0], z[1], z[2:], v[2:]
        w = self.xP + self.PhiP @ q
        c = p["l1"] * np.sin(t1) + (rot(t2) @ w)[1]
        cz = np.concatenate([[p["l1"] * np.cos(t1), (drot(t2) @ w)[1]], (rot(t2) @ self.PhiP)[1]])
        vHv = -p["l1"] * np.sin(t1) * v[0] ** 2 - (rot(t2) @ w)[1] * v[1] ** 2 + 2 * v[1] * (drot(t2) @ self.PhiP @ dq)[1]
        return c, cz, vHv

    def accelerations(self, z, v):
        """z'' and the guide's force (0 without the guide)."""
        nz = 2 + self.n
        M = self.mass(z)
        dM = np.zeros((nz, nz, nz))  # dM[k] = dM/dz_k
        for k in range(nz):
            dz = np.zeros(nz)
            dz[k] = 1e-5
            dM[k] = (self.mass(z + dz) - self.mass(z - dz)) / 2e-5
        Mdot_v = np.einsum("kij,k,j->i", dM, v, v)
        dT = 0.5 * np.einsum("kij,i,j->k", dM, v, v)
        f = -Mdot_v + dT - self.potential_gradient(z)
        f[2:] -= self.D @ v[2:]
        if not self.guide:
            return np.linalg.solve(M, f), 0.0
        c, cz, vHv = self.guide_terms(z, v)
        a = 100.0
        B = np.zeros((nz + 1, nz + 1))
        B[:nz, :nz], B[:nz, nz], B[nz, :nz] = M, cz, cz
        x = np.linalg.solve(B, np.concatenate([f, [-vHv - 2 * a * cz @ v - a * a * c]]))
        return x[:nz], -x[nz]

    def rhs(self, t, y):
        nz = 2 + self.n
        return np.concatenate([y[nz:], self.accelerations(y[:nz], y[nz:])[0]])

    def energy(self, y):
        nz = 2 + self.n
        z, v = y[:nz], y[nz:]
        return 0.5 * v @ self.mass(z) @ v + self.potential(z)


def solve(rom, tip, t_eval, rtol=1e-10, p=TABLE1, guide=False):
    sc = FlexibleSliderCrank(rom, tip, p, guide)
    nz = 2 + sc.n
    y0 = np.zeros(2 * nz)
    y0[:2] = p["theta0"][:2]
    y0[nz:nz + 2] = p["omega0"][:2]
    sol = solve_ivp(sc.rhs, (0, t_eval[-1]), y0, method="Radau", t_eval=t_eval, rtol=rtol, atol=rtol * 1e-3)
    if not sol.success:
        raise RuntimeError(sol.message)
    z = sol.y[:nz]
    P = np.array([p["l1"] * e(z[0, i]) + rot(z[1, i]) @ (sc.xP + sc.PhiP @ z[2:, i]) for i in range(sol.t.size)]).T
    out = dict(t=sol.t, theta1=z[0], theta2=z[1], x=P[0], y=P[1], energy=np.array([sc.energy(sol.y[:, i]) for i in range(sol.t.size)]))
    if guide:
        out["guide_force"] = np.array([sc.accelerations(z[:, i], sol.y[nz:, i])[1] for i in range(sol.t.size)])
    for k in range(sc.n):
        out[f"q{k}"] = z[2 + k]
    return out, sol.nfev


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rom")
    ap.add_argument("--tip", required=True, help="the two output rows giving the tip's displacement x, y, e.g. n63_x,n63_y")
    ap.add_argument("--guide", action="store_true", help="c = 0: the slider on a prismatic guide along x (Fig. 22)")
    ap.add_argument("--t-end", type=float, default=0.01)
    ap.add_argument("--dt", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-10)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    t = np.linspace(0, a.t_end, int(round(a.t_end / a.dt)) + 1)
    r, nfev = solve(a.rom, a.tip.split(","), t, a.rtol, guide=a.guide)
    drift = np.abs(r["energy"] - r["energy"][0]).max() / abs(r["energy"][0])
    print(f"flexible: {t.size} instants to t = {a.t_end} s ({nfev} evaluations); energy {r['energy'][0]:.9g} J, relative drift "
          f"{drift:.2e}; at the end theta1 = {r['theta1'][-1]:.9g} rad, slider at ({r['x'][-1]:.9g}, {r['y'][-1]:.9g}) m"
          + (f"; the guide's row |y| <= {np.abs(r['y']).max():.2e} m" if a.guide else ""))
    if a.out:
        cols = list(r)
        np.savetxt(a.out, np.column_stack([r[k] for k in cols]), delimiter=",", header=",".join(cols), comments="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
