#!/usr/bin/env python3
"""Floquet multipliers of a periodic response of a massless-boundary ROM with unilateral contacts, computed without the
harmonic balance code: the independent check of `vicms hb`'s stability (docs/hb.md, "Stability").

The motion is piecewise linear: while contact j is closed its normal coordinate is held (q_o = -g0), while it is open its
force is zero, and the boundary rows left free follow the inner coordinates statically. Per contact state the inner
coordinates obey M q'' + D q' + K_eff q = p cos(Omega t) + c, solved exactly (the periodic forced response plus
scipy.linalg.expm on the rest). The period map integrates one period on a grid of sub-steps, locating every contact switch
by brentq on the exact solution (a gap of an open contact or the force of a closed one crossing zero). Shooting: Newton
on P(x) - x from the harmonic balance state at t = 0 (the harmonics of every ROM coordinate, written when the ROM has one
output per coordinate, named q00, q01, ...), with the product of the segments' exponentials as its Jacobian. The
multipliers are the eigenvalues of the monodromy matrix by central finite differences of the period map (independent of
that product; both agree to 1e-8 on the plate).

    floquet_exact.py ROM HB_RESULTS LOAD AMPLITUDE GAP FREQ [FREQ ...] [--preload P]

prints, per frequency, the branch point nearest to it, its multiplier from `vicms hb` and the exact one. As a module:
    PeriodMap(rom, load, amplitude, gap, freq, preload=p).shoot(x0) -> (x, monodromy, residual)
Harmonic loads only (a single frequency), constant gaps and preloads. A preload p (as `-contact_preload`: the ROM's state 0
is the preloaded equilibrium, the contact force its change lambda) makes an open contact's force -p (the total zero) and a
closed one open where p + lambda reaches zero.
"""
import itertools
import sys

import h5py
import numpy as np
import scipy.linalg as sl
import scipy.optimize as so


class PeriodMap:
    def __init__(self, rom, load, amplitude, gap, freq, nsub=2048, preload=0.0):
        with h5py.File(rom, "r") as f:
            self.K, self.M, self.D = f["K"][()], f["M"][()], f["D"][()]
            self.nb = int(f.attrs["n_boundary"])
            dims = f["contact/dims"][()]
            self.off = f["contact/offsets"][()] if "contact/offsets" in f else np.concatenate([[0], np.cumsum(dims)[:-1]])
            self.b = amplitude * f["loads/" + load][()]
        self.n = self.K.shape[0]
        self.nm = self.n - self.nb
        self.g0 = gap
        self.p = preload
        self.om = 2 * np.pi * freq
        self.T = 1 / freq
        self.nsub = nsub
        self.h = self.T / nsub
        self.states = {}

    def state(self, closed):
        """the linear system of one contact state: x' = A x + c + Bf cos(Omega t); events y = Y x + y0 + yf cos"""
        key = tuple(bool(c) for c in closed)
        if key in self.states:
            return self.states[key]
        K, b, nm = self.K, self.b, self.nm
        I = list(range(self.nb, self.n))
        C = [self.off[j] for j in range(len(key)) if key[j]]
        F = [i for i in range(self.nb) if i not in C]
        qC = -self.g0 * np.ones(len(C))
        KFFi = np.linalg.inv(K[np.ix_(F, F)]) if F else np.zeros((0, 0))
        Fx = -KFFi @ K[np.ix_(F, I)]  # q_F = Fx q_I + F0 + Ff cos
        lF = np.array([-self.p if i in self.off else 0.0 for i in F])  # an open contact's force
        F0 = KFFi @ (lF - (K[np.ix_(F, C)] @ qC if C else 0))
        Ff = KFFi @ b[F]
        Keff = K[np.ix_(I, I)] + K[np.ix_(I, F)] @ Fx
        c0 = -K[np.ix_(I, F)] @ F0 - (K[np.ix_(I, C)] @ qC if C else 0)
        cf = b[I] - K[np.ix_(I, F)] @ Ff
        Minv = np.linalg.inv(self.M[np.ix_(I, I)])
        A = np.block([[np.zeros((nm, nm)), np.eye(nm)], [-Minv @ Keff, -Minv @ self.D[np.ix_(I, I)]]])
        c = np.concatenate([np.zeros(nm), Minv @ c0])
        Bf = np.concatenate([np.zeros(nm), Minv @ cf])
        Y, y0, yf = np.zeros((len(key), 2 * nm)), np.zeros(len(key)), np.zeros(len(key))
        for j, o in enumerate(self.off):
            if key[j]:  # the total contact force p + lambda, lambda = K_o. q - b_o
                Y[j, :nm] = K[o, I] + K[o, F] @ Fx
                y0[j] = K[o, C] @ qC + K[o, F] @ F0 + self.p
                yf[j] = K[o, F] @ Ff - b[o]
            else:  # the gap q_o + g0
                r = F.index(o)
                Y[j, :nm], y0[j], yf[j] = Fx[r], F0[r] + self.g0, Ff[r]
        lam, V = np.linalg.eig(A)  # for the event functions within a sub-step (the root search); the motion itself by expm
        s = dict(A=A, xc=-np.linalg.solve(A, c), X=np.linalg.solve(1j * self.om * np.eye(2 * nm) - A, Bf), Y=Y, y0=y0, yf=yf,
                 E=sl.expm(A * self.h), lam=lam, YV=Y @ V, Vi=np.linalg.inv(V))
        self.states[key] = s
        return s

    def xp(self, s, t):
        return s["xc"] + (s["X"] * np.exp(1j * self.om * t)).real

    def events(self, s, x, t):
        return s["Y"] @ x + s["y0"] + s["yf"] * np.cos(self.om * t)

    def initial_state(self, x):
        for key in itertools.product([False, True], repeat=len(self.off)):
            y = self.events(self.state(key), x, 0.0)
            if np.all(y >= -1e-12 * (1 + np.abs(y).max())):
                return list(key)
        raise RuntimeError("no consistent contact state at t = 0")

    def period(self, x0):
        """x(T) from x(0) = x0 and the segments (start time, contact state)"""
        closed = self.initial_state(x0)
        s = self.state(closed)
        z, t, k, log = x0 - self.xp(s, 0.0), 0.0, 0, [(0.0, tuple(closed))]
        while k < self.nsub:
            t1 = (k + 1) * self.h
            E = s["E"] if t == k * self.h else sl.expm(s["A"] * (t1 - t))
            z1 = E @ z
            y1 = self.events(s, self.xp(s, t1) + z1, t1)
            if np.all(y1 >= 0):
                z, t, k = z1, t1, k + 1
                continue
            t0, za, wa = t, z, s["Vi"] @ z

            def fun(tau, j):
                return (s["YV"][j] @ (np.exp(s["lam"] * tau) * wa)).real + self.events(s, self.xp(s, t0 + tau), t0 + tau)[j]

            first = min((0.0 if fun(0, j) < 0 else so.brentq(fun, 0, t1 - t0, args=(j,), xtol=1e-18, rtol=4 * np.finfo(float).eps), j)
                        for j in np.nonzero(y1 < 0)[0])
            xe = self.xp(s, t0 + first[0]) + sl.expm(s["A"] * first[0]) @ za
            closed[first[1]] = not closed[first[1]]
            t = t0 + first[0]
            s = self.state(closed)
            z = xe - self.xp(s, t)
            log.append((t, tuple(closed)))
            if len(log) > 1000:
                raise RuntimeError("contact switches run away")
        return self.xp(s, self.T) + z, log

    def product(self, log):
        Mon = np.eye(2 * self.nm)
        for (ta, st), (tb, _) in zip(log, log[1:] + [(self.T, None)]):
            Mon = sl.expm(self.state(st)["A"] * (tb - ta)) @ Mon
        return Mon

    def finite_differences(self, x, rel=1e-6):
        nm = self.nm
        h = np.concatenate([np.full(nm, np.abs(x[:nm]).max()), np.full(nm, np.abs(x[nm:]).max())]) * rel
        J = np.zeros((2 * nm, 2 * nm))
        for k in range(2 * nm):
            e = np.zeros(2 * nm)
            e[k] = h[k]
            J[:, k] = (self.period(x + e)[0] - self.period(x - e)[0]) / (2 * h[k])
        return J

    def shoot(self, x, iterations=30, tol=1e-11):
        P, log = self.period(x)
        res = np.linalg.norm(P - x) / np.linalg.norm(x)
        for _ in range(iterations):
            if res < tol:
                break
            dx = -np.linalg.solve(self.product(log) - np.eye(len(x)), P - x)
            a = 1.0
            while True:  # backtracking on the residual
                xn = x + a * dx
                Pn, logn = self.period(xn)
                rn = np.linalg.norm(Pn - xn) / np.linalg.norm(xn)
                if rn < res or a < 1e-3:
                    break
                a /= 2
            x, P, log, res = xn, Pn, logn, rn
        return x, self.finite_differences(x), res


def hb_state(group, point, nb):
    """the state (q_I, v_I) at t = 0 of branch point `point` from the harmonics of the outputs q00, q01, ..."""
    names = group.attrs["outputs"].decode().split(",")
    H = int(group.attrs["harmonics_H"])
    om = 2 * np.pi * group["frequency_hz"][point]
    c = group["harmonics"][point].reshape(len(names), 2 * H + 1)
    rows = [names.index("q%02d" % i) for i in range(sum(n.startswith("q") for n in names))]
    c = c[rows]
    q = c[:, 0] + c[:, 1::2].sum(1)
    v = (om * np.arange(1, H + 1) * c[:, 2::2]).sum(1)
    return np.concatenate([q[nb:], v[nb:]])


def main(argv):
    preload = 0.0
    if "--preload" in argv:
        k = argv.index("--preload")
        preload = float(argv[k + 1])
        argv = argv[:k] + argv[k + 2:]
    rom, results, load, amplitude, gap = argv[1], argv[2], argv[3], float(argv[4]), float(argv[5])
    g = h5py.File(results, "r")["summary/hb"]
    f = g["frequency_hz"][()]
    for target in [float(a) for a in argv[6:]]:
        k = int(np.argmin(np.abs(f - target)))
        pm = PeriodMap(rom, load, amplitude, gap, f[k], preload=preload)
        x, J, res = pm.shoot(hb_state(g, k, pm.nb))
        mu = np.abs(np.linalg.eigvals(J)).max() if res < 1e-9 else -1
        print("point %d at %.4f Hz: vicms hb %.7f, exact %.7f (shooting residual %.1e)" % (k, f[k], g["multiplier"][k], mu, res), flush=True)


if __name__ == "__main__":
    main(sys.argv)
