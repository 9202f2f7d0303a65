#!/usr/bin/env python3
"""A user's alternative to vicms: the leapfrog scheme of seed 000 §2 (Fig. 2) in NumPy, on a vicms ROM file.

usage: numpy_leapfrog.py ROM.h5 JOB.yaml [--set NAME=VALUE ...] [--compare RESULTS.h5 [--case K]] [--steps N] [--json]

The same algorithm as vicms's src/step/leapfrog.c, written the way a NumPy user would: dense arrays, one vectorized
expression per stage, a Python loop over the time steps and over the contact iterations.
  - static boundary problem: q_b = K_bb^-1 (f_b - K_bi q_i) + K_bb^-1 E_a lambda_a (Eqs. 11-12);
  - active-set prediction: the contacts whose predicted gap q_b,n + g0(t) is <= 0;
  - contact: projected Jacobi with the augmented-Lagrangian parameter of Studer (eps_i = s / G_ii when the Delassus
    matrix G is diagonally dominant, else s / sum_j |G_ij|; the two tangents of a contact share the smaller), seed 000
    App. C: frictionless contacts on position level (G = (K_bb^-1)_aa), frictional ones on velocity level
    (G = (K_bb^-1)_aa / dt, the obstacle sliding along t1 and its imposed gap moving at dg0/dt);
  - inner dynamics by central differences: (M_ii + dt/2 D_ii) u^{k+1/2} = (M_ii - dt/2 D_ii) u^{k-1/2}
    + dt (f_i - K_i q), q_i^{k+1} = q_i^k + dt u^{k+1/2}.
The case is the job file's (flat "name: value" lines, vicms's option names without the dash) with --set on top:
case_loads with harmonic or constant time functions, contact_gap, contact_gap_amplitude/waves/phase_step,
contact_rotation_speed, contact_sliding_speed, contact_mu, step_dt, step_end_time, step_output_every, contact_tol,
contact_max_it, contact_al_scale, contact_relaxation. Anything else that changes the dynamics is refused.

Prints the steps and the wall time per step of the time loop (the set-up and the reading of the file excluded).
--compare: the recorded outputs and normal contact forces against case K of a vicms results file of the same case
(same levels), as max |difference| / max |value| per quantity.
--steps N: stop after N steps (the per-step time of a long run without waiting for it).
"""
import argparse
import json
import math
import sys
import time

import h5py
import numpy as np

SUPPORTED = {
    "case_loads", "contact_gap", "contact_gap_amplitude", "contact_gap_waves", "contact_gap_phase_step", "contact_rotation_speed",
    "contact_sliding_speed", "contact_mu", "step_type", "step_dt", "step_end_time", "step_output_every", "contact_tol", "contact_max_it",
    "contact_al_scale", "contact_relaxation", "contact_solver",
}
IGNORED_PREFIXES = ("mesh_", "model_", "cms_", "cases_", "results_", "rom_file", "summary_", "log_")


def read_job(path, sets):
    opts = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, value = line.partition(":")
        opts[name.strip()] = value.strip()
    for s in sets:
        name, _, value = s.partition("=")
        opts[name.lstrip("-")] = value
    for name, value in opts.items():
        if name in SUPPORTED or name.startswith(IGNORED_PREFIXES) or name.startswith("load_"):
            continue
        sys.exit(f"numpy_leapfrog.py: option {name} ({value}) is not supported by this script")
    if opts.get("step_type", "leapfrog") != "leapfrog" or opts.get("contact_solver", "jacobi") != "jacobi":
        sys.exit("numpy_leapfrog.py: only -step_type leapfrog with -contact_solver jacobi")
    return opts


def load_functions(opts, rom):
    """[(vector, kind, amplitude, frequency, phase)] of the case's loads"""
    loads = []
    names = [n for n in opts.get("case_loads", "").split(",") if n]
    for name in names:
        kind = opts.get(f"load_{name}_type", "constant")
        if kind not in ("constant", "harmonic"):
            sys.exit(f"numpy_leapfrog.py: load {name}: type {kind} is not supported (constant or harmonic)")
        loads.append((rom["loads/" + name][()], kind, float(opts.get(f"load_{name}_amplitude", 1)), float(opts.get(f"load_{name}_frequency", 0)),
                      float(opts.get(f"load_{name}_phase", 0))))
    return loads


def studer_eps(G, dims, s):
    """the augmented-Lagrangian parameter per row (Studer 2009); the tangents of a 3D contact share the smaller"""
    d = np.diag(G)
    off = np.abs(G).sum(axis=1) - np.abs(d)
    eps = s / d if np.all(d >= off) else s / (d + off)
    row = 0
    for dj in dims:
        if dj == 3:
            eps[row + 1] = eps[row + 2] = min(eps[row + 1], eps[row + 2])
        row += dj
    return eps


def project(x, nrm, tan, mu_t, tdim):
    """proj onto R+ (normals) and onto the disks of radius mu x_n (tangents, tdim per contact) of the contacts"""
    z = x.copy()
    z[nrm] = np.maximum(z[nrm], 0.0)
    if len(tan):
        t = z[tan].reshape(-1, tdim)
        r = mu_t * z[nrm[: len(t)]]
        norm = np.sqrt((t * t).sum(axis=1))
        out = norm > r
        t[out] *= (r[out] / norm[out])[:, None]
        z[tan] = t.ravel()
    return z


def solve(G, c, x, dims, mu, tol, max_it, al_scale, omega):
    """projected Jacobi, seed 000 Eq. (C.2); dims: coordinates per active contact (all 1, or all equal with friction)"""
    eps = studer_eps(G, dims, al_scale)
    nd = dims[0]
    nrm = np.arange(0, len(x), nd)
    tan = np.array([i for i in range(len(x)) if i % nd], dtype=int) if nd > 1 else np.zeros(0, dtype=int)
    it = 0
    while True:
        y = G @ x + c
        z = project(x - eps * y, nrm, tan, mu, nd - 1)
        res = np.max(np.abs(x - z)) / max(1.0, np.max(np.abs(x)))
        if res <= tol or it == max_it or not np.isfinite(res):
            return x, it, res
        x = z if omega == 1.0 else (1 - omega) * x + omega * z
        it += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rom")
    ap.add_argument("job")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--compare", metavar="RESULTS.h5")
    ap.add_argument("--case", type=int, default=0)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="one JSON line instead of the text (for bench/numpy.sh)")
    a = ap.parse_args()
    opts = read_job(a.job, a.set)

    with h5py.File(a.rom, "r") as rom:
        if rom.attrs.get("massless", 0) != 1:
            sys.exit("numpy_leapfrog.py: the leapfrog scheme needs a massless-boundary ROM")
        K, M, D = rom["K"][()], rom["M"][()], rom["D"][()]
        nb = int(rom.attrs["n_boundary"])
        offsets, cdims = rom["contact/offsets"][()].astype(int), rom["contact/dims"][()].astype(int)
        onames = list(rom["outputs"].keys())
        O = np.array([rom["outputs/" + o][()] for o in onames]) if onames else np.zeros((0, len(K)))
        loads = load_functions(opts, rom)
    n, nc = len(K), len(offsets)
    nm = n - nb
    dt, t_end = float(opts.get("step_dt", 1e-4)), float(opts.get("step_end_time", 1.0))
    every = int(opts.get("step_output_every", 1))
    mu = float(opts.get("contact_mu", 0))
    gap, gap_a = float(opts.get("contact_gap", 0)), float(opts.get("contact_gap_amplitude", 0))
    w = int(opts.get("contact_gap_waves", 1)) * float(opts.get("contact_rotation_speed", 0))
    phase = np.arange(nc) * float(opts.get("contact_gap_phase_step", 0))
    v_slide = float(opts.get("contact_sliding_speed", 0))
    tol, max_it = float(opts.get("contact_tol", 1e-10)), int(opts.get("contact_max_it", 1000))
    al_scale, omega = float(opts.get("contact_al_scale", 1)), float(opts.get("contact_relaxation", 1))
    friction = mu > 0 and np.any(cdims > 1)

    # set-up: K_bb^-1, K_bb^-1 K_bi, (M_ii + dt/2 D_ii)^-1, M_ii - dt/2 D_ii
    Kbb_inv = np.linalg.inv(K[:nb, :nb])
    S = Kbb_inv @ K[:nb, nb:]
    A = np.linalg.inv(M[nb:, nb:] + 0.5 * dt * D[nb:, nb:])
    B = M[nb:, nb:] - 0.5 * dt * D[nb:, nb:]
    diagonal = np.count_nonzero(A - np.diag(np.diag(A))) == 0 and np.count_nonzero(B - np.diag(np.diag(B))) == 0
    a_diag, b_diag = np.diag(A).copy(), np.diag(B).copy()
    K_i = K[nb:, :]
    # the rows of each contact in a solve: its normal, and its tangents when the case has friction
    rows_of = [list(range(o, o + d)) if friction and d > 1 else [o] for o, d in zip(offsets, cdims)]

    nsteps = math.ceil((t_end - 0.0) / dt - 1e-9)
    if a.steps:
        nsteps = min(nsteps, a.steps)
    q = np.zeros(n)
    ui = np.zeros(nm)
    qb_prev = np.zeros(nb)
    fb_prev = np.zeros(nb)
    rec_t, rec_out, rec_force = [], [], []
    solves = iters = 0

    t0 = time.perf_counter()
    for k in range(nsteps + 1):
        t = k * dt
        f = np.zeros(n)
        for vec, kind, amp, freq, ph in loads:
            f += amp * (math.cos(2 * math.pi * freq * t + ph) if kind == "harmonic" else 1.0) * vec
        arg = w * t + phase
        g0 = gap + gap_a * np.cos(arg)
        g0_rate = -gap_a * w * np.sin(arg)
        qi = q[nb:]
        qb_pre = Kbb_inv @ f[:nb] - S @ qi
        active = np.flatnonzero(qb_pre[offsets] + g0 <= 0)
        qb = qb_pre.copy()
        lam = np.zeros(nb)
        if len(active):
            rows = np.array([r for j in active for r in rows_of[j]])
            dims = [len(rows_of[j]) for j in active]
            if friction:
                c = (qb_pre[rows] - qb_prev[rows]) / dt
                nd = dims[0]
                c[0::nd] += g0_rate[active]
                if nd > 1:
                    c[1::nd] -= v_slide
                x0 = fb_prev[rows].copy()
                G = Kbb_inv[np.ix_(rows, rows)] / dt
            else:
                c = qb_pre[rows] + g0[active]
                x0 = np.maximum(fb_prev[rows], 0.0)
                G = Kbb_inv[np.ix_(rows, rows)]
            x, it, _ = solve(G, c, x0, dims, mu, tol, max_it, al_scale, omega)
            solves += 1
            iters += it
            lam[rows] = x
            qb += Kbb_inv[:, rows] @ x
        q[:nb] = qb
        # inner velocity u^{k+1/2}
        r = dt * (f[nb:] - K_i @ q) + (b_diag * ui if diagonal else B @ ui)
        ui = a_diag * r if diagonal else A @ r
        if k % every == 0 or k == nsteps:
            rec_t.append(t)
            rec_out.append(O @ q)
            rec_force.append(lam[offsets].copy())
        fb_prev = lam
        qb_prev = qb
        if k < nsteps:
            q[nb:] += dt * ui
    wall = time.perf_counter() - t0

    steps = nsteps + 1
    out = {"n": n, "nb": nb, "nc": nc, "friction": bool(friction), "steps": steps, "wall": wall, "us_per_step": 1e6 * wall / steps,
           "solves": solves, "iterations_per_solve": iters / max(solves, 1)}
    if a.compare:
        with h5py.File(a.compare, "r") as res:
            g = res[f"cases/{a.case}"]
            vt, vo, vf = g["t"][()], g["outputs"][()], g["forces"][()]
            m = min(len(vt), len(rec_t))
            if m == 0 or not np.allclose(vt[:m], rec_t[:m], rtol=0, atol=1e-12 * max(1.0, t_end)):
                sys.exit("numpy_leapfrog.py: the results file's recorded times are not this run's")
            out["levels_compared"] = m
            for name, mine, theirs in (("outputs", np.array(rec_out)[:m], vo[:m]), ("forces", np.array(rec_force)[:m], vf[:m])):
                scale = float(np.max(np.abs(theirs)))
                out[name + "_max"] = scale
                out[name + "_diff"] = float(np.max(np.abs(mine - theirs))) / max(scale, 1e-300)
    if a.json:
        print(json.dumps(out))
        return
    print(f"numpy leapfrog: n = {n} ({nb} boundary, {nc} contacts{', friction' if friction else ''}), {steps} steps in {wall:.3f} s, "
          f"{out['us_per_step']:.2f} us per step, {solves} contact solves, {out['iterations_per_solve']:.1f} iterations per solve")
    for name in ("outputs", "forces") if a.compare else ():
        print(f"  {name}: max |numpy - vicms| / max |vicms| = {out[name + '_diff']:.3e} over {out['levels_compared']} recorded levels "
              f"(max |vicms| = {out[name + '_max']:.4g})")

if __name__ == "__main__":
    main()
