#!/usr/bin/env python3
"""Independent references for the rigid slider-crank of seed 001 (Table 1, after Flores, Leine and Glocker, Multibody Syst.
Dyn. 23 (2010) 165), solved with SciPy, for the tests of vicms's multibody systems (issue 23) and bench/slider_crank_siconos.py.

The mechanism in the plane, gravity g along -y: the crank (length l1, mass m1, inertia J1 about its centre of mass) turns
about the origin by theta1; the connecting rod (l2, m2, J2) is pinned to the crank's tip and turned by theta2; the slider
(m3, J3, a rectangle 2a x 2b) is pinned by its centre to the rod's end, turned by theta3, and moves between the guide's
walls y = +-(b + c) (the notch height d = 2b + 2c; c the clearance on each side). Every centre of mass is at the middle
of its body. Coordinates and velocities start at Table 1's values: theta = 0, omega = (150, -75, 0) rad/s.

Two models:
  free   the clearance too large to touch: no contact ever, three coordinates (theta1, theta2, theta3); the slider's
         rotation is decoupled (its pin is its centre of mass) and stays omega3 t. M(q) q'' = Q(q) - h(q, q') from the
         bodies' kinematics (below).
  ideal  c = 0 (seed 001 Fig. 22's bilateral case, no friction): the slider's centre held on y = 0 and theta3 = 0; one
         coordinate, the crank angle: theta2 = -asin(l1 sin(theta1) / l2) and the index-reduced ODE
         (Jc^T M Jc) theta1'' = Jc^T (Q - h - M gamma), Jc = dq/dtheta1, gamma = (0, theta2'' at theta1'' = 0, 0).
         The guide's normal force on the slider (along +y) is written too.

Both are integrated by solve_ivp (DOP853, rtol = atol = 1e-12 unless asked); the energy T + V (conserved: no friction,
no impact, no driving torque) is printed as a check of the equations.

    slider_crank.py free|ideal [--t-end T] [--dt DT] [--rtol R] [--out FILE.csv]

writes the columns t, theta1, theta2, theta3, omega1, omega2, omega3, x, y (slider centre), energy[, normal_force] at
t = 0, DT, 2 DT, ... T (default T = 0.05 s, DT = 1e-4 s). As a module: slider_crank.solve(model, t) returns them as a dict.
"""
import argparse
import sys

import numpy as np
from scipy.integrate import solve_ivp

# seed 001 Table 1 (SI units)
TABLE1 = dict(l1=0.1530, l2=0.3060, a=0.0500, b=0.0250, c=0.0010, m1=0.0380, m2=0.0380, m3=0.0760, J1=7.4e-5, J2=5.9e-4,
              J3=2.7e-6, g=9.81, e_n=0.4, e_t=0.0, mu=0.01, theta0=(0.0, 0.0, 0.0), omega0=(150.0, -75.0, 0.0))


def e(t):
    return np.array([np.cos(t), np.sin(t)])


def de(t):
    return np.array([-np.sin(t), np.cos(t)])


def bodies(q, v, p=TABLE1):
    """Per body: mass, inertia, centre of mass r, its Jacobian Jr (2 x 3), its convective acceleration gamma = dJr/dt v,
    and the index of the coordinate that is the body's angle."""
    t1, t2, _ = q
    w1, w2, _ = v
    l1, l2 = p["l1"], p["l2"]
    z = np.zeros(2)
    crank = (p["m1"], p["J1"], l1 / 2 * e(t1), np.column_stack([l1 / 2 * de(t1), z, z]), -l1 / 2 * e(t1) * w1**2, 0)
    rod = (p["m2"], p["J2"], l1 * e(t1) + l2 / 2 * e(t2), np.column_stack([l1 * de(t1), l2 / 2 * de(t2), z]),
           -l1 * e(t1) * w1**2 - l2 / 2 * e(t2) * w2**2, 1)
    slider = (p["m3"], p["J3"], l1 * e(t1) + l2 * e(t2), np.column_stack([l1 * de(t1), l2 * de(t2), z]),
              -l1 * e(t1) * w1**2 - l2 * e(t2) * w2**2, 2)
    return crank, rod, slider


def dynamics(q, v, p=TABLE1):
    """M(q), the generalized gravity Q(q) and the quadratic velocity forces h(q, v): M q'' = Q - h (+ constraint forces)."""
    M, Q, h = np.zeros((3, 3)), np.zeros(3), np.zeros(3)
    for m, J, r, Jr, gam, k in bodies(q, v, p):
        M += m * Jr.T @ Jr
        M[k, k] += J
        Q += m * Jr.T @ np.array([0.0, -p["g"]])
        h += m * Jr.T @ gam
    return M, Q, h


def energy(q, v, p=TABLE1):
    T = V = 0.0
    for m, J, r, Jr, gam, k in bodies(q, v, p):
        T += 0.5 * m * np.sum((Jr @ v) ** 2) + 0.5 * J * v[k] ** 2
        V += m * p["g"] * r[1]
    return T + V


def ideal_kinematics(t1, w1, p=TABLE1):
    """theta2 on the guide y = 0 and the velocity transformation: q = (t1, t2, 0), v = Jc w1, convective gamma."""
    r = p["l1"] / p["l2"]
    t2 = -np.arcsin(r * np.sin(t1))
    f1 = -r * np.cos(t1) / np.cos(t2)  # dtheta2/dtheta1
    f2 = r * np.sin(t1) / np.cos(t2) - r * np.cos(t1) * np.sin(t2) * f1 / np.cos(t2) ** 2  # d2theta2/dtheta1^2
    return np.array([t1, t2, 0.0]), np.array([1.0, f1, 0.0]), np.array([0.0, f2 * w1**2, 0.0])


def rhs_free(t, y, p=TABLE1):
    q, v = y[:3], y[3:]
    M, Q, h = dynamics(q, v, p)
    return np.concatenate([v, np.linalg.solve(M, Q - h)])


def rhs_ideal(t, y, p=TABLE1):
    q, Jc, gam = ideal_kinematics(y[0], y[1], p)
    M, Q, h = dynamics(q, Jc * y[1], p)
    return [y[1], Jc @ (Q - h - M @ gam) / (Jc @ M @ Jc)]


def solve(model, t_eval, p=TABLE1, rtol=1e-12):
    """The motion at the times t_eval (from 0) as a dict of arrays (see the module's doc)."""
    th0, om0 = np.array(p["theta0"], float), np.array(p["omega0"], float)
    if model == "free":
        sol = solve_ivp(rhs_free, (0, t_eval[-1]), np.concatenate([th0, om0]), method="DOP853", t_eval=t_eval, rtol=rtol,
                        atol=rtol, args=(p,))
        q, v = sol.y[:3], sol.y[3:]
    elif model == "ideal":
        sol = solve_ivp(rhs_ideal, (0, t_eval[-1]), [th0[0], om0[0]], method="DOP853", t_eval=t_eval, rtol=rtol, atol=rtol,
                        args=(p,))
        q, v = np.zeros((3, sol.t.size)), np.zeros((3, sol.t.size))
        for i in range(sol.t.size):
            q[:, i], Jc, _ = ideal_kinematics(sol.y[0, i], sol.y[1, i], p)
            v[:, i] = Jc * sol.y[1, i]
    else:
        raise ValueError(f"model {model}: expected free or ideal")
    if not sol.success:
        raise RuntimeError(sol.message)
    out = dict(t=sol.t, theta1=q[0], theta2=q[1], theta3=q[2], omega1=v[0], omega2=v[1], omega3=v[2])
    out["x"] = p["l1"] * np.cos(q[0]) + p["l2"] * np.cos(q[1])
    out["y"] = p["l1"] * np.sin(q[0]) + p["l2"] * np.sin(q[1])
    out["energy"] = np.array([energy(q[:, i], v[:, i], p) for i in range(sol.t.size)])
    if model == "ideal":
        # the theta2 row of M q'' + h - Q = w lambda, w = d(y_slider)/dq = (l1 cos t1, l2 cos t2, 0)
        lam = np.zeros(sol.t.size)
        for i in range(sol.t.size):
            qi, Jc, gam = ideal_kinematics(sol.y[0, i], sol.y[1, i], p)
            M, Q, h = dynamics(qi, v[:, i], p)
            acc = Jc * rhs_ideal(0, sol.y[:, i], p)[1] + gam
            lam[i] = (M @ acc + h - Q)[1] / (p["l2"] * np.cos(qi[1]))
        out["normal_force"] = lam
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", choices=["free", "ideal"])
    ap.add_argument("--t-end", type=float, default=0.05)
    ap.add_argument("--dt", type=float, default=1e-4)
    ap.add_argument("--rtol", type=float, default=1e-12)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    t = np.linspace(0, a.t_end, int(round(a.t_end / a.dt)) + 1)
    r = solve(a.model, t, rtol=a.rtol)
    drift = np.abs(r["energy"] - r["energy"][0]).max() / abs(r["energy"][0])
    print(f"{a.model}: {t.size} instants to t = {a.t_end} s; energy {r['energy'][0]:.9g} J, relative drift {drift:.2e}; "
          f"at the end theta1 = {r['theta1'][-1]:.9g} rad, slider at ({r['x'][-1]:.9g}, {r['y'][-1]:.9g}) m")
    if a.out:
        cols = [k for k in r]
        np.savetxt(a.out, np.column_stack([r[k] for k in cols]), delimiter=",", header=",".join(cols), comments="")
    return 0 if drift < 1e-8 else 1


if __name__ == "__main__":
    sys.exit(main())
