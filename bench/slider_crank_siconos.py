#!/usr/bin/env python3
"""The rigid slider-crank with clearance of seed 001 (Table 1; Flores, Leine and Glocker, Multibody Syst. Dyn. 23 (2010)
165) in Siconos 4.4 (Debian python3-siconos): the peer of vicms's speed benchmark (issue 23 §5), see bench/README.md.

Three coordinates q = (theta1, theta2, theta3): crank and rod angles, the slider's angle; the slider's centre is the rod's
end. Gravity g along -y. The slider (2a x 2b) moves between the guide's walls y = +-(b + c); its four corners (-a, b),
(a, b) against the upper wall and (-a, -b), (a, -b) against the lower one are the contacts of seed 001 Eqs. (171)-(178):
normal gap and tangential position, Newton restitution e_N (e_T = 0) and Coulomb friction mu (Siconos
NewtonImpactFrictionNSL, 2-D FrictionContact). Moreau-Jean time stepping (MoreauJeanOSI, theta = 0.5) with Siconos's
Newton loop on the nonlinear dynamics.

The equations (mass matrix, quadratic velocity forces, gravity, gaps and their Jacobians) go to Siconos as C plugins, the
way its own C++ examples give them: this script writes them with the run's parameters, compiles them with cc into a
temporary folder and points the LagrangianDS and LagrangianScleronomousR at them, so that a step costs what Siconos costs
and not what Python callbacks cost. The equations are the same as those of tests/ref/slider_crank.py (the SciPy reference).

    slider_crank_siconos.py [--h H] [--t-end T] [--clearance C] [--restitution E] [--mu MU] [--out FILE.csv]
                            [--compare REF.csv --tol TOL]

writes t, theta1, theta2, theta3, x, y (the slider's centre) every step and prints the time per step (the stepping loop
only: set-up, plugin compilation and output excluded). With --compare (a CSV of tests/ref/slider_crank.py free, with a
clearance too large to touch) the largest difference of theta1 and of the slider's centre at the reference's instants is
checked against TOL (exit 1 when larger).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import siconos.kernel as sk
import siconos.numerics as sn

TABLE1 = dict(l1=0.1530, l2=0.3060, a=0.0500, b=0.0250, m1=0.0380, m2=0.0380, m3=0.0760, J1=7.4e-5, J2=5.9e-4, J3=2.7e-6,
              g=9.81)

PLUGIN = r"""
#include <math.h>
static const double l1 = %(l1)r, l2 = %(l2)r, a = %(a)r, b = %(b)r, half_d = %(half_d)r;
static const double m1 = %(m1)r, m2 = %(m2)r, m3 = %(m3)r, J1 = %(J1)r, J2 = %(J2)r, J3 = %(J3)r, g = %(g)r;
/* matrices column-major, as Siconos's plugins take them */
void mass(unsigned int n, const double *q, double *M, unsigned int nz, double *z)
{
  double c = (0.5 * m2 + m3) * l1 * l2 * cos(q[0] - q[1]);
  M[0] = J1 + (0.25 * m1 + m2 + m3) * l1 * l1; M[1] = c;  M[2] = 0;
  M[3] = c; M[4] = J2 + (0.25 * m2 + m3) * l2 * l2;  M[5] = 0;
  M[6] = 0; M[7] = 0; M[8] = J3;
}
/* quadratic velocity forces, on the left-hand side: M q'' + FGyr + FInt = p */
void FGyr(unsigned int n, const double *q, const double *v, double *f, unsigned int nz, double *z)
{
  double k = (0.5 * m2 + m3) * l1 * l2 * sin(q[0] - q[1]);
  f[0] = k * v[1] * v[1]; f[1] = -k * v[0] * v[0]; f[2] = 0;
}
void jacobianFGyrq(unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  double k = (0.5 * m2 + m3) * l1 * l2 * cos(q[0] - q[1]);
  for (int i = 0; i < 9; i++) J[i] = 0;
  J[0] = k * v[1] * v[1]; J[1] = -k * v[0] * v[0];
  J[3] = -k * v[1] * v[1]; J[4] = k * v[0] * v[0];
}
void jacobianFGyrqDot(unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  double k = (0.5 * m2 + m3) * l1 * l2 * sin(q[0] - q[1]);
  for (int i = 0; i < 9; i++) J[i] = 0;
  J[1] = -2 * k * v[0]; J[3] = 2 * k * v[1];
}
/* gravity along -y: FInt = dV/dq */
void FInt(double t, unsigned int n, const double *q, const double *v, double *f, unsigned int nz, double *z)
{
  f[0] = (0.5 * m1 + m2 + m3) * g * l1 * cos(q[0]); f[1] = (0.5 * m2 + m3) * g * l2 * cos(q[1]); f[2] = 0;
}
void jacobianFIntq(double t, unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  for (int i = 0; i < 9; i++) J[i] = 0;
  J[0] = -(0.5 * m1 + m2 + m3) * g * l1 * sin(q[0]); J[4] = -(0.5 * m2 + m3) * g * l2 * sin(q[1]);
}
void jacobianFIntqDot(double t, unsigned int n, const double *q, const double *v, double *J, unsigned int nz, double *z)
{
  for (int i = 0; i < 9; i++) J[i] = 0;
}
/* corner k at (x0, y0) in the slider's frame, against the wall on side s (+1 upper, -1 lower): gap half_d - s y_corner,
   tangential coordinate x_corner */
static const double X0[4] = {-a, a, -a, a}, Y0[4] = {b, b, -b, -b}, S[4] = {1, 1, -1, -1};
static void gap(int k, const double *q, unsigned int m, double *y)
{
  double py = l1 * sin(q[0]) + l2 * sin(q[1]) + X0[k] * sin(q[2]) + Y0[k] * cos(q[2]);
  double px = l1 * cos(q[0]) + l2 * cos(q[1]) + X0[k] * cos(q[2]) - Y0[k] * sin(q[2]);
  y[0] = half_d - S[k] * py;
  if (m > 1) y[1] = px;
}
static void jac(int k, const double *q, unsigned int m, double *W)
{
  double dy[3] = {l1 * cos(q[0]), l2 * cos(q[1]), X0[k] * cos(q[2]) - Y0[k] * sin(q[2])};
  double dx[3] = {-l1 * sin(q[0]), -l2 * sin(q[1]), -X0[k] * sin(q[2]) - Y0[k] * cos(q[2])};
  for (int j = 0; j < 3; j++) {
    W[j * m] = -S[k] * dy[j];
    if (m > 1) W[j * m + 1] = dx[j];
  }
}
#define CORNER(k) \
  void g##k(unsigned int n, const double *q, unsigned int m, double *y, unsigned int nz, double *z) { gap(k - 1, q, m, y); } \
  void W##k(unsigned int n, const double *q, unsigned int m, double *W, unsigned int nz, double *z) { jac(k - 1, q, m, W); }
CORNER(1)
CORNER(2)
CORNER(3)
CORNER(4)
"""


def build_plugin(folder, clearance, p=TABLE1):
    src, lib = os.path.join(folder, "slider_crank_plugin.c"), os.path.join(folder, "slider_crank_plugin.so")
    with open(src, "w") as f:
        f.write(PLUGIN % dict(p, half_d=p["b"] + clearance))
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, src, "-lm"], check=True)
    return lib


def simulate(h, t_end, clearance, e, mu, folder, p=TABLE1):
    lib = build_plugin(folder, clearance, p)
    plugin = os.path.splitext(lib)[0]
    ds = sk.LagrangianDS([0.0, 0.0, 0.0], [150.0, -75.0, 0.0], plugin + ":mass")
    ds.setComputeFGyrFunction(plugin, "FGyr")
    ds.setComputeJacobianFGyrqFunction(plugin, "jacobianFGyrq")
    ds.setComputeJacobianFGyrqDotFunction(plugin, "jacobianFGyrqDot")
    ds.setComputeFIntFunction(plugin, "FInt")
    ds.setComputeJacobianFIntqFunction(plugin, "jacobianFIntq")
    ds.setComputeJacobianFIntqDotFunction(plugin, "jacobianFIntqDot")
    nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
    nsds.insertDynamicalSystem(ds)
    inters = []
    for k in range(1, 5):
        rel = sk.LagrangianScleronomousR(f"{plugin}:g{k}", f"{plugin}:W{k}")
        inter = sk.Interaction(sk.NewtonImpactFrictionNSL(e, 0.0, mu, 2), rel)
        nsds.link(inter, ds)
        inters.append(inter)
    osi = sk.MoreauJeanOSI(0.5)
    fc = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_ENUM)
    fc.numericsSolverOptions().dparam[sn.SICONOS_DPARAM_TOL] = 1e-8
    fc.numericsSolverOptions().iparam[sn.SICONOS_IPARAM_MAX_ITER] = 1000
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), osi, fc)
    sim.setNewtonTolerance(1e-10)
    sim.setNewtonMaxIteration(50)
    n = int(round(t_end / h))
    out = np.zeros((n + 1, 4))
    q = ds.q()
    out[0] = [0.0, *q]
    t0 = time.perf_counter()
    for i in range(1, n + 1):
        sim.computeOneStep()
        out[i, 0] = sim.nextTime()
        out[i, 1:] = q
        sim.nextStep()
    elapsed = time.perf_counter() - t0
    contacts = sum(np.any(ic.lambda_(1) != 0) for ic in inters)
    x = p["l1"] * np.cos(out[:, 1]) + p["l2"] * np.cos(out[:, 2])
    y = p["l1"] * np.sin(out[:, 1]) + p["l2"] * np.sin(out[:, 2])
    return np.column_stack([out, x, y]), elapsed / n, contacts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--h", type=float, default=1e-5)
    ap.add_argument("--t-end", type=float, default=0.05)
    ap.add_argument("--clearance", type=float, default=0.001)
    ap.add_argument("--restitution", type=float, default=0.4)
    ap.add_argument("--mu", type=float, default=0.01)
    ap.add_argument("--out", default=None)
    ap.add_argument("--compare", default=None)
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        r, per_step, _ = simulate(a.h, a.t_end, a.clearance, a.restitution, a.mu, folder)
    print(f"siconos: h = {a.h:g} s, {r.shape[0] - 1} steps to t = {a.t_end:g} s, clearance {a.clearance:g} m, "
          f"e = {a.restitution:g}, mu = {a.mu:g}: {per_step * 1e6:.2f} us per step; at the end theta1 = {r[-1, 1]:.9g} rad, "
          f"slider at ({r[-1, 4]:.9g}, {r[-1, 5]:.9g}) m")
    if a.out:
        np.savetxt(a.out, r, delimiter=",", header="t,theta1,theta2,theta3,x,y", comments="",
                   footer=f"# siconos MoreauJeanOSI theta 0.5, h {a.h!r}, clearance {a.clearance!r}, e {a.restitution!r}, "
                   f"mu {a.mu!r}, time_per_step_s {per_step!r}")
    if a.compare:
        ref = np.genfromtxt(a.compare, delimiter=",", names=True)
        tr = ref["t"]
        err_th = np.abs(np.interp(tr, r[:, 0], r[:, 1]) - ref["theta1"]).max()
        err_x = max(np.abs(np.interp(tr, r[:, 0], r[:, 4]) - ref["x"]).max(), np.abs(np.interp(tr, r[:, 0], r[:, 5]) - ref["y"]).max())
        ok = err_th <= a.tol * np.abs(ref["theta1"]).max() and err_x <= a.tol * np.abs(ref["x"]).max()
        print(f"{'ok  ' if ok else 'FAIL'} against {a.compare}: largest difference theta1 {err_th:.3e} rad, slider centre "
              f"{err_x:.3e} m (tolerance {a.tol:g} relative)")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
