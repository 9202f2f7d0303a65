"""Reference solutions for checks: the single-mass oscillator with a Jenkins element (a spring kt in series with a
Coulomb slider of limit Fy = mu N, between the mass and the ground), m x'' + c x' + k x + f_J = F cos(w t).

describing_function(a, kt, fy): the single-harmonic equivalent stiffness and damping stiffness of the elastic-perfectly
plastic element at amplitude a (Caughey 1960): below the slip amplitude xs = fy/kt the element sticks (kt, 0); above,
with phi = arccos(1 - 2 xs/a),
    k_eq = kt (phi - sin(2 phi)/2) / pi,   k_d = 4 fy (a - xs) / (pi a^2)
(the in-phase and quadrature first harmonics of the hysteresis loop per unit amplitude; pi a^2 k_d = 4 fy (a - xs) is
the loop's area, the energy dissipated per cycle).
describing_amplitudes(w, ...): the amplitudes a solving F^2 = a^2 ((k + k_eq - m w^2)^2 + (c w + k_d)^2).
periodic_response(w, ...): the exact steady state by event-driven time integration (scipy solve_ivp: stick while
|kt (x - z)| < fy, slip at the force fy until the velocity vanishes), integrated until one period repeats the last.
"""
import numpy as np


def describing_function(a, kt, fy):
    """(k_eq, k_d) of the Jenkins element at amplitude a."""
    a = np.asarray(a, dtype=float)
    xs = fy / kt
    r = np.clip(1 - 2 * xs / np.maximum(a, 1e-300), -1, 1)
    phi = np.arccos(r)
    slip = a > xs
    keq = np.where(slip, kt * (phi - np.sin(2 * phi) / 2) / np.pi, kt)
    kd = np.where(slip, 4 * fy * (a - xs) / (np.pi * np.maximum(a, 1e-300) ** 2), 0.0)
    return keq, kd


def describing_amplitudes(w, m, k, kt, fy, c, F, amax=None):
    """Every amplitude a > 0 of the single-harmonic balance at circular frequency w (sorted)."""
    from scipy.optimize import brentq

    def g(a):
        keq, kd = describing_function(a, kt, fy)
        return a * np.hypot(k + keq - m * w * w, c * w + kd) - F

    amax = amax or 10 * F / max(min(abs(k - m * w * w), abs(k + kt - m * w * w)), c * w, 1e-12 * k)
    grid = np.geomspace(1e-9 * amax, amax, 4000)
    v = np.array([g(a) for a in grid])
    roots = [brentq(g, grid[i], grid[i + 1], xtol=1e-15 * amax, rtol=1e-14) for i in np.nonzero(np.sign(v[:-1]) != np.sign(v[1:]))[0]]
    return np.array(sorted(roots))


def describing_state(w, m, k, kt, fy, c, F):
    """The state (x, v, z) at t = 0 of the single-harmonic solution x = a cos(w t - phi) on its hysteresis loop (z the
    slider's position): a start near the steady state for periodic_response."""
    a = describing_amplitudes(w, m, k, kt, fy, c, F)[-1]
    keq, kd = describing_function(a, kt, fy)
    phi = np.arctan2(c * w + kd, k + keq - m * w * w)
    x, v = a * np.cos(phi), a * w * np.sin(phi)
    f = fy - kt * (a - x) if v < 0 else kt * (x + a) - fy  # the loop's branch from the last turning point
    f = float(np.clip(f, -fy, fy)) if a > fy / kt else kt * x
    return x, v, x - f / kt


def periodic_response(w, m, k, kt, fy, c, F, periods=400, tol=1e-10, samples=2000, x0=None):
    """The exact periodic response: (t, x) over one period (samples points) of the steady state, and the number of
    periods integrated. x0 = (x, v, z) initial state (z the slider's position; default: describing_state)."""
    from scipy.integrate import solve_ivp

    if x0 is None:
        x0 = describing_state(w, m, k, kt, fy, c, F)
    T = 2 * np.pi / w
    xs = fy / kt

    def stick_rhs(z0):
        return lambda t, y: [y[1], (F * np.cos(w * t) - c * y[1] - k * y[0] - kt * (y[0] - z0)) / m]

    def slip_rhs(s):
        return lambda t, y: [y[1], (F * np.cos(w * t) - c * y[1] - k * y[0] - s * fy) / m]

    x, v, z = x0
    t = 0.0
    mode = ("stick", z)
    last = None
    for p in range(periods):
        t_end = (p + 1) * T
        grid = np.linspace(p * T, t_end, samples + 1)
        xs_period = np.empty(samples + 1)
        while True:
            if mode[0] == "stick":
                z0 = mode[1]
                ev = lambda t_, y, z0=z0: abs(kt * (y[0] - z0)) - fy  # noqa: E731
                ev.terminal, ev.direction = True, 1
                sol = solve_ivp(stick_rhs(z0), (t, t_end), [x, v], method="DOP853", rtol=1e-12, atol=1e-14 * (xs + F / k),
                                events=ev, dense_output=True)
            else:
                s = mode[1]
                ev = lambda t_, y: y[1]  # noqa: E731
                ev.terminal, ev.direction = True, -s
                sol = solve_ivp(slip_rhs(s), (t, t_end), [x, v], method="DOP853", rtol=1e-12, atol=1e-14 * (xs + F / k),
                                events=ev, dense_output=True)
            sel = (grid >= t) & (grid <= sol.t[-1])
            xs_period[sel] = sol.sol(grid[sel])[0]
            t, (x, v) = sol.t[-1], sol.y[:, -1]
            if sol.status == 1:  # an event: switch
                if mode[0] == "stick":
                    s = np.sign(kt * (x - mode[1]))
                    mode = ("slip", s)
                else:
                    mode = ("stick", x - mode[1] * xs)
                continue
            break
        if last is not None and np.abs(xs_period - last).max() <= tol * np.abs(xs_period).max():
            return grid, xs_period, p + 1
        last = xs_period
    return grid, xs_period, periods
