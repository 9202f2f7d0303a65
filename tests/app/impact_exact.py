#!/usr/bin/env python3
"""The exact periodic motion of a two-coordinate mass-carrying impact oscillator with plastic impacts, independently of
vicms: the reference for the stability that `vicms hb` decides by the time stepping's transient (tests/app/hb.sh, c3).

Coordinate 0 is the contact's (gap q_0 + g0 >= 0), coordinate 1 the driven mass; M q'' + D q' + K q = f(t) + lambda e_0.
Open: the smooth motion until the gap closes. Closing: a plastic impact (e = 0), the impactor's velocity lost (M is
diagonal: the impulse acts on q_0 alone). Closed: q_0 = -g0, q_0' = 0, the contact force lambda = (D q' + K q - f)_0
until it falls to zero. Event-driven integration (scipy's DOP853 with events, rtol 1e-12), shooting by Newton on the
period map with a Jacobian by central differences, the monodromy matrix by central differences (it includes the
impacts' saltation), its largest eigenvalue modulus the largest Floquet multiplier.

    impact_exact.py ROM HB_RESULTS LOAD AMPLITUDE GAP STRIDE

prints, for every STRIDE-th point of the branch, "k f residual exact transient stable" (the residual of the shooting,
the exact multiplier, then vicms's multiplier and verdict); the HB state at t = 0 is read from the outputs q00, q01.
"""
import sys

import h5py
import numpy as np
from scipy.integrate import solve_ivp


class ImpactMap:
    def __init__(self, rom, load, amplitude, gap, freq):
        with h5py.File(rom, "r") as f:
            self.K, self.M, self.D = f["K"][()], f["M"][()], f["D"][()]
            self.b = amplitude * f["loads/" + load][()]
        self.Mi = np.linalg.inv(self.M)
        self.g0, self.w, self.T = gap, 2 * np.pi * freq, 1 / freq

    def force(self, t):
        return self.b * np.cos(self.w * t)

    def lam(self, t, y):
        return (self.D @ y[2:] + self.K @ y[:2] - self.force(t))[0]

    def open_rhs(self, t, y):
        return np.concatenate([y[2:], self.Mi @ (self.force(t) - self.D @ y[2:] - self.K @ y[:2])])

    def closed_rhs(self, t, y):
        a = (self.force(t) - self.D @ y[2:] - self.K @ y[:2])[1] / self.M[1, 1]
        return np.array([0.0, y[3], 0.0, a])

    def period(self, y0, closed):
        t, y = 0.0, np.array(y0, float)
        for _ in range(400):
            if t >= self.T - 1e-15:
                return y
            if closed:
                ev = lambda t, y: self.lam(t, y)
            else:
                ev = lambda t, y: y[0] + self.g0
            ev.terminal, ev.direction = True, -1
            s = solve_ivp(self.closed_rhs if closed else self.open_rhs, (t, self.T), y, events=ev, rtol=1e-12, atol=1e-13, method="DOP853")
            t, y = s.t[-1], s.y[:, -1].copy()
            if s.status == 1:
                if not closed:
                    y[0], y[2] = -self.g0, 0.0  # plastic impact
                closed = not closed and self.lam(t, y) > 0
        raise RuntimeError("contact events run away")

    def jacobian(self, y, closed):
        J = np.zeros((4, 4))
        for i in range(4):
            h = 1e-7 * max(1.0, abs(y[i]))
            e = np.zeros(4)
            e[i] = h
            J[:, i] = (self.period(y + e, closed) - self.period(y - e, closed)) / (2 * h)
        return J

    def shoot(self, y):
        """(orbit's state at t = 0, its residual |P(y) - y| / |y|, the largest multiplier) from y by Newton"""
        closed = y[0] + self.g0 <= 1e-9 and self.lam(0, np.array([-self.g0, y[1], 0.0, y[3]])) > 0
        if closed:
            y[0], y[2] = -self.g0, 0.0
        for _ in range(20):
            P = self.period(y, closed)
            r = np.linalg.norm(P - y) / np.linalg.norm(y)
            if r < 1e-10:
                break
            y = y + np.linalg.lstsq(self.jacobian(y, closed) - np.eye(4), y - P, rcond=1e-12)[0]
            if closed:
                y[0], y[2] = -self.g0, 0.0
        return y, r, np.abs(np.linalg.eigvals(self.jacobian(y, closed))).max()


def hb_state(g, k):
    names = g.attrs["outputs"].decode().split(",")
    H, om = int(g.attrs["harmonics_H"]), 2 * np.pi * g["frequency_hz"][k]
    c = g["harmonics"][k].reshape(len(names), 2 * H + 1)[[names.index("q00"), names.index("q01")]]
    return np.concatenate([c[:, 0] + c[:, 1::2].sum(1), (om * np.arange(1, H + 1) * c[:, 2::2]).sum(1)])


def main(argv):
    rom, results, load, amplitude, gap, stride = argv[1], argv[2], argv[3], float(argv[4]), float(argv[5]), int(argv[6])
    g = h5py.File(results, "r")["summary/hb"]
    f, st, mu = g["frequency_hz"][()], g["stable"][()], g["multiplier"][()]
    for k in range(0, len(f), stride):
        y = hb_state(g, k)
        if y[0] + gap < 0:  # the series penetrates the stop by its truncation: start on it
            y[0] = -gap
        try:
            _, r, ex = ImpactMap(rom, load, amplitude, gap, f[k]).shoot(y)
        except (RuntimeError, np.linalg.LinAlgError):
            r, ex = np.inf, -1.0
        print(f"{k} {f[k]:.6f} {r:.3e} {ex:.6f} {mu[k]:.6f} {int(st[k])}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
