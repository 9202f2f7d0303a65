#!/usr/bin/env python3
"""An independent reference for a spatial flexible body in a floating frame (issue 23; the vicms implementation is
src/system/mbflexspatial.c): a ROM written by `vicms reduce -cms_frame_invariants` whose frame's origin sits on a spherical
joint at the ground's origin, under gravity, integrated here by SciPy to 1e-12.

What is independent of vicms: the coordinates and the equations. vicms uses a unit quaternion with its norm row, Shabana's
closed forms of the mass matrix in Euler parameters, the quadratic velocity vector of Lagrange's equations with M's
derivatives by hyper-dual numbers, and nsgalpha's GGL rows. Here the orientation is the rotation matrix itself, integrated
as A' = A w~ (w the body angular velocity; nine entries, no parameters, kept orthogonal by the integrator's 1e-12), and the
equations are Euler's for the rotation and Lagrange's for the elastic coordinates, from the kinetic energy's definition
T = 1/2 int rho |w x u + Phi q_f'|^2 (the point u = x + Phi q_f in the frame):

    T = 1/2 [w; q_f']^T Mw(q_f) [w; q_f'],  Mw = [[tr(J) I - J, I_thf], [I_thf^T, m_ff]],
    J(q_f) = int rho u u^T,  I_thf = int rho u~ Phi,  m_ff = int rho Phi^T Phi   (the ROM's /frame: docs/frame.md),

    d/dt (dT/dw) + w x dT/dw = u-bar x A^T g                  (Euler: the body-frame moments about the fixed origin),
    d/dt (dT/dq_f') - dT/dq_f = S^T A^T g - K q_f              (u-bar = I_1 + S q_f, S = int rho Phi),

the time derivatives of the polynomial Mw(q_f) written out. Checked by the energy T - g . A u-bar + q_f^T K q_f / 2, which
it keeps to 1e-13.

usage: spatial_flexible.py ROM.h5 --tilt A --spin W --t-end T --dt DT --node NAME --point X,Y,Z --out ref.csv
  the body starts turned by A about y, undeformed, spinning at W rad/s about the fixed z axis; the CSV has t, the point's
  deformed position (the frame's point X, Y, Z moved by the ROM's output rows NAME_x, _y, _z) and the energy.
"""
import argparse

import h5py
import numpy as np
from scipy.integrate import solve_ivp


class Body:
    def __init__(self, path, g):
        with h5py.File(path, "r") as f:
            fr = f["frame"]
            self.n = n = f["K"].shape[0]
            self.K = f["K"][()]
            self.m = float(np.ravel(fr["mass"][()])[0])
            self.I1 = np.ravel(fr["first_moment"][()])
            self.J0 = np.reshape(fr["second_moment"][()], (3, 3))
            self.S = np.reshape(fr["mode_moment"][()], (3, n))
            P = np.reshape(fr["position_mode"][()], (3, 3, n))  # P[b, c, k] = int rho x_b Phi_k^c
            Q = np.reshape(fr["mode_mode"][()], (3, 3, n, n))  # Q[b, c, k, l] = int rho Phi_k^b Phi_l^c
            self.rows = {k: f["outputs"][k][()] for k in f["outputs"]}
        self.g = np.asarray(g, dtype=float)
        eps = np.zeros((3, 3, 3))
        for a, b, c in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
            eps[a, b, c], eps[a, c, b] = 1, -1
        self.mff = np.einsum("bbkl->kl", Q)
        # J(q) = J0 + sum_k Jk[k] q_k + sum_kl Q[:, :, k, l] q_k q_l, Jk[k] = P[:, :, k] + P[:, :, k]^T (as n x 9 and 9n x n)
        self.Jk = np.transpose(P + np.transpose(P, (1, 0, 2)), (2, 0, 1)).reshape(n, 9)
        self.Q2 = Q.reshape(9 * n, n)
        self.Qs = (Q + np.transpose(Q, (0, 1, 3, 2))).reshape(9 * n, n)
        # I_thf(q)[a, k] = eps_abc int rho u_b Phi_k^c = F0[a, k] + sum_l F1[a, k, l] q_l
        self.F0 = np.einsum("abc,bck->ak", eps, P)
        self.F1 = np.einsum("abc,bclk->akl", eps, Q)
        self.F1l = self.F1.reshape(3 * n, n)  # [(a, k), l]: d I_thf[a, k] / dq_l

    def parts(self, q):
        n = self.n
        J = (self.J0.ravel() + q @ self.Jk + (self.Q2 @ q).reshape(9, n) @ q).reshape(3, 3)
        dJ = self.Jk + (self.Qs @ q).reshape(9, n).T  # dJ/dq_k, row k (9)
        return J, dJ, self.F0 + self.F1 @ q

    def rhs(self, t, y):
        n = self.n
        A, w, q, qd = y[:9].reshape(3, 3), y[9:12], y[12:12 + n], y[12 + n:]
        J, dJ, F = self.parts(q)
        Ith = np.trace(J) * np.eye(3) - J
        dIth = np.outer(dJ[:, 0] + dJ[:, 4] + dJ[:, 8], np.eye(3).ravel()) - dJ  # d I_thth / dq_k, row k (9)
        Fd = self.F1 @ qd  # d I_thf / dt
        h = Ith @ w + F @ qd
        gb = A.T @ self.g
        ubar = self.I1 + self.S @ q
        rw = np.cross(ubar, gb) - np.cross(w, h) - (qd @ dIth).reshape(3, 3) @ w - Fd @ qd
        # dT/dq_k = w^T dIth_k w / 2 + sum_(a, l) w_a F1[a, l, k] q'_l
        dTdq = 0.5 * dIth @ np.outer(w, w).ravel() + np.outer(w, qd).ravel() @ self.F1l
        rq = dTdq - Fd.T @ w + self.S.T @ gb - self.K @ q
        Mw = np.block([[Ith, F], [F.T, self.mff]])
        acc = np.linalg.solve(Mw, np.concatenate([rw, rq]))
        Ad = A @ np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return np.concatenate([Ad.ravel(), acc[:3], qd, acc[3:]])

    def energy(self, y):
        n = self.n
        A, w, q, qd = y[:9].reshape(3, 3), y[9:12], y[12:12 + n], y[12 + n:]
        J, _, F = self.parts(q)
        Mw = np.block([[np.trace(J) * np.eye(3) - J, F], [F.T, self.mff]])
        v = np.concatenate([w, qd])
        return 0.5 * v @ Mw @ v - self.g @ (A @ (self.I1 + self.S @ q)) + 0.5 * q @ self.K @ q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rom")
    ap.add_argument("--tilt", type=float, required=True)
    ap.add_argument("--spin", type=float, required=True)
    ap.add_argument("--gravity", default="0,0,-9.81")
    ap.add_argument("--t-end", type=float, required=True)
    ap.add_argument("--dt", type=float, required=True)
    ap.add_argument("--node", required=True)
    ap.add_argument("--point", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    b = Body(a.rom, [float(v) for v in a.gravity.split(",")])
    c, s_ = np.cos(a.tilt), np.sin(a.tilt)
    A0 = np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])  # turned by tilt about y
    w0 = A0.T @ np.array([0, 0, a.spin])
    y0 = np.concatenate([A0.ravel(), w0, np.zeros(2 * b.n)])
    t = np.arange(0, a.t_end + 0.5 * a.dt, a.dt)
    sol = solve_ivp(b.rhs, (0, t[-1]), y0, method="DOP853", t_eval=t, rtol=1e-12, atol=1e-13)
    assert sol.success, sol.message
    x = np.array([float(v) for v in a.point.split(",")])
    C = np.array([b.rows["%s_%s" % (a.node, c)] for c in "xyz"])
    with open(a.out, "w") as o:
        o.write("t,x,y,z,energy\n")
        for k, tk in enumerate(sol.t):
            y = sol.y[:, k]
            p = y[:9].reshape(3, 3) @ (x + C @ y[12:12 + b.n])
            o.write("%.17g,%.17g,%.17g,%.17g,%.17g\n" % (tk, p[0], p[1], p[2], b.energy(y)))


if __name__ == "__main__":
    main()
