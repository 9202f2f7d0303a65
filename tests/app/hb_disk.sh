#!/usr/bin/env bash
# `vicms hb` with a 3D frictional contact (the round Coulomb disk, issue 12): a unit mass moving in a plane (x, y), on
# springs k = (2 pi)^2 and, through springs kt = 2k, on the massless tangential coordinates (t1, t2) of one 3D contact
# pressed by a preload N = 2 (mu = 0.5; its normal coordinate on a spring 10k), driven by a rotating force
# F (cos 2 pi f t, sin 2 pi f t): two loads of the same frequency, the second a quarter period behind (-phase).
# In gross slip the steady state is a uniform circular motion whose slip direction turns with it, which a contact that
# is not a round disk (or a disk projected per tangent) gets wrong. It is known in closed form: with U = r e^{i phi}
# the contact coordinates' complex amplitude, the node's balance kt (U - W) = -i mu N U / r (the friction force opposes
# the slip velocity i w U) gives the mass's W = U (1 + i a / r), a = mu N / kt, and the mass's balance
# (k - m w^2 + i c w) W + i mu N U / r = F fixes r: |Z (r + i a) + i mu N| = F, Z = k - m w^2 + i c w.
# Checks, on the branch 0.5-3 Hz (H = 5):
# - the amplitude of x at every point in gross slip (closed and slipping over the whole period) converges to the closed
#   form at first order in the samples N: the largest relative error halves from N = 64 to 128, 256 and 512 (ratio
#   1.9-2.1) and is below 0.25 % at N = 512. The friction force of the displacement-based dynamic Lagrangian opposes
#   the increment x_k - x_(k-1) of the slip, a backward difference of its velocity: in a slip whose direction turns
#   continuously the force lags by half a sample (docs/hb.md);
# - y follows x a quarter period behind (first harmonics b1(y) = a1(x), equal amplitudes) within 1e-6;
# - the stability at N = 256, by the time stepping's transient (the exact analysis does not model a turning slip
#   direction): stable at every gross-slip point, and its estimated multiplier against the exact largest multiplier of
#   the circular orbit (its smooth ODE while slipping, scipy, monodromy by central differences) at seven frequencies;
# - on 1, 2 and 3 ranks the results files are bitwise equal (N = 64);
# - at 1.2 and 2.5 Hz `vicms simulate` (leapfrog, velocity-level friction on the disk, 1 ms over 60 s) agrees with the
#   closed form within 0.5 %.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

VICMS_SOURCE=$VICMS_SOURCE $py - <<'EOF2' || exit 1
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["VICMS_SOURCE"], "scripts"))
from write_user_rom import springs, write_user_rom

k = 4 * np.pi ** 2
K = springs(5, [(0, None, 10 * k), (1, 3, 2 * k), (2, 4, 2 * k), (3, None, k), (4, None, k)])  # n, t1, t2, x, y
M = np.diag([0, 0, 0, 1.0, 1.0])
c = 2 * 0.05 * 4 * np.pi
D = np.diag([0, 0, 0, c, c])
write_user_rom("disk.h5", K, M, D, contact_dims=[3], loads={"dx": [0, 0, 0, 1.0, 0], "dy": [0, 0, 0, 0, 1.0]},
               outputs={"x": [0, 0, 0, 1.0, 0], "y": [0, 0, 0, 0, 1.0]}, massless=True, units="SI")
EOF2

F=3
drive="-rom_file disk.h5 -case_loads dx,dy -load_dx_type harmonic -load_dx_frequency 1 -load_dx_amplitude $F -load_dy_type harmonic \
  -load_dy_frequency 1 -load_dy_amplitude $F -load_dy_phase -1.5707963267948966 -contact_gap 0 -contact_preload 2 -contact_mu 0.5"
hb="-hb_freq_range 0.5,3 -hb_harmonics 5 -hb_max_freq_step 0.05 -hb_stability false"
for np in 1 2 3; do
  must "np=$np vicms hb" mpi 60 "$np" hb $drive $hb -hb_samples 64 -results_file hb$np.h5 && echo "ok   np=$np: $(grep Wrote <<<"$LAST")"
done
for N in 128 256 512; do
  # N = 256 with the stability: the time stepping's transient (the exact analysis does not model 3D friction)
  must "N = $N vicms hb" mpi 60 1 hb $drive $hb -hb_samples $N $([ $N = 256 ] && echo -hb_stability true) -results_file hbN$N.h5
done
for fr in 1.2 2.5; do
  must "vicms simulate at $fr Hz" mpi 120 1 simulate $drive -cases_values load_dx_frequency:$fr -load_dy_frequency $fr -step_type leapfrog \
    -step_dt 1e-3 -step_end_time 60 -summary_steady_fraction 0.1 -cases_keep_series false -results_file ts$fr.h5
done
[ $fail -eq 0 ] || exit 1
F=$F $py - <<'EOF2' || fail=1
import os
import sys

import h5py
import numpy as np

ok = True
def check(good, what):
    global ok
    print(("ok   " if good else "FAIL ") + what)
    ok = ok and good

b = [h5py.File(f"hb{n}.h5", "r")["summary/hb"] for n in (1, 2, 3)]
g = b[0]
check(all(np.array_equal(g[key][()], o[key][()]) for o in b[1:] for key in g), "results equal bitwise on 1, 2 and 3 ranks")
k, m, c, kt, mu, N, F = 4 * np.pi ** 2, 1.0, 2 * 0.05 * 4 * np.pi, 8 * np.pi ** 2, 0.5, 2.0, float(os.environ["F"])
a = mu * N / kt


def closed_form(f):
    """|W| of the uniform circular gross slip at f: r >= 0 from |Z (r + i a) + i mu N|^2 = F^2, a quadratic in r"""
    w = 2 * np.pi * f
    Z = k - m * w ** 2 + 1j * c * w
    B = 1j * (Z * a + mu * N)  # Z r + B
    r = max(np.roots([abs(Z) ** 2, 2 * (Z.conjugate() * B).real, abs(B) ** 2 - F ** 2]).real)
    return np.hypot(r, a)


def errors(g):
    """the largest relative error of the amplitude of x at the points in gross slip, and those points"""
    f, amp = g["frequency_hz"][()], g["amplitude"][()]
    ix = g.attrs["outputs"].decode().split(",").index("x")
    gross = (g["closed_fraction"][:, 0] == 1) & (g["slip_fraction"][:, 0] == 1)
    return max(abs(amp[p, ix] - closed_form(f[p])) / closed_form(f[p]) for p in np.nonzero(gross)[0]), gross


e = {64: errors(g)}
for n in (128, 256, 512):
    e[n] = errors(h5py.File(f"hbN{n}.h5", "r")["summary/hb"])
f, gross = g["frequency_hz"][()], e[64][1]
rates = [e[n][0] / e[2 * n][0] for n in (64, 128, 256)]
check(all(e[n][1].sum() >= 50 for n in e) and all(1.9 <= q <= 2.1 for q in rates) and e[512][0] <= 2.5e-3,
      f"{gross.sum()} of {len(f)} points in gross slip ({f[gross].min():.3f}-{f[gross].max():.3f} Hz): the amplitude of x against the closed "
      f"form within {e[64][0]:.2e} / {e[128][0]:.2e} / {e[256][0]:.2e} / {e[512][0]:.2e} at N = 64 / 128 / 256 / 512, first order "
      f"(ratios {' / '.join('%.3f' % q for q in rates)}, 1.9-2.1; <= 0.25 % at N = 512)")
names = g.attrs["outputs"].decode().split(",")
ix, iy = names.index("x"), names.index("y")
amp, H = g["amplitude"][()], int(g.attrs["harmonics_H"])
hx = g["harmonics"][()].reshape(len(f), len(names), 2 * H + 1)
quarter = np.abs(hx[:, iy, 2] - hx[:, ix, 1]).max() / np.abs(hx[:, ix, 1:3]).max()
same = np.abs(amp[:, iy] - amp[:, ix]).max() / amp[:, ix].max()
check(quarter <= 1e-6 and same <= 1e-6, f"y follows x a quarter period behind: b1(y) = a1(x) within {quarter:.1e}, amplitudes within {same:.1e} (<= 1e-6)")
# the stability (N = 256, the time stepping's transient) against the exact multipliers of the circular orbit: in gross
# slip the contact node stays at the distance a from the mass, u = w - a (cos th, sin th), and moves along w - u, so
# the motion is the smooth ODE m w'' + c w' + k w + kt a (cos th, sin th) = F(t), th' = w'.(-sin th, cos th) / a (while
# the slip speed w'.(cos th, sin th) > 0); its period map from the closed-form orbit by scipy's DOP853 (rtol 1e-12),
# the monodromy by central differences
from scipy.integrate import solve_ivp


def exact_multiplier(f):
    w = 2 * np.pi * f
    Z = k - m * w ** 2 + 1j * c * w
    B = 1j * (Z * a + mu * N)
    r = max(np.roots([abs(Z) ** 2, 2 * (Z.conjugate() * B).real, abs(B) ** 2 - F ** 2]).real)
    U = r * F / (Z * (r + 1j * a) + 1j * mu * N) / abs(F / (Z * (r + 1j * a) + 1j * mu * N))
    W = U * (1 + 1j * a / r)
    s0 = np.array([W.real, W.imag, (1j * w * W).real, (1j * w * W).imag, np.angle(W - U)])

    def rhs(t, s):
        e, p = np.array([np.cos(s[4]), np.sin(s[4])]), np.array([-np.sin(s[4]), np.cos(s[4])])
        acc = (F * np.array([np.cos(w * t), np.sin(w * t)]) - c * s[2:4] - k * s[0:2] - kt * a * e) / m
        return [s[2], s[3], acc[0], acc[1], s[2:4] @ p / a]

    def period(s):
        return solve_ivp(rhs, (0, 1 / f), s, rtol=1e-12, atol=1e-14, method="DOP853").y[:, -1]

    J = np.zeros((5, 5))
    for i in range(5):
        d = np.zeros(5)
        d[i] = 1e-6 * max(1, abs(s0[i]))
        J[:, i] = (period(s0 + d) - period(s0 - d)) / (2 * d[i])
    return np.abs(np.linalg.eigvals(J)).max()


gs = h5py.File("hbN256.h5", "r")["summary/hb"]
fs, st, mt, meth = gs["frequency_hz"][()], gs["stable"][()], gs["multiplier"][()], gs["stability_method"][()]
gross = (gs["closed_fraction"][:, 0] == 1) & (gs["slip_fraction"][:, 0] == 1)
picks = [int(np.argmin(np.abs(fs - x))) for x in (0.6, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5)]
rel = np.array([abs(mt[p] - exact_multiplier(fs[p])) / exact_multiplier(fs[p]) for p in picks])
check(np.all(meth == 2) and np.all(st[gross] == 1) and np.all(gross[picks]) and np.median(rel) <= 0.03 and rel.max() <= 0.25,
      f"stability by the time stepping's transient: stable at all {gross.sum()} gross-slip points; its multiplier against the exact "
      f"circular orbit's at {', '.join('%.2f' % fs[p] for p in picks)} Hz: {', '.join('%.4f/%.4f' % (mt[p], exact_multiplier(fs[p])) for p in picks)}, "
      f"within {100 * np.median(rel):.1f} % in the median (<= 3 %) and {100 * rel.max():.1f} % at worst (<= 25 %)")
for fr, at in np.concatenate([h5py.File(f"ts{x}.h5", "r")["summary/frf"][()] for x in ("1.2", "2.5")]):
    ex = closed_form(fr)
    e = abs(at - ex) / ex
    check(e <= 5e-3, f"{fr:.2f} Hz: vicms simulate {at:.6f}, closed form {ex:.6f}, difference {100 * e:.3f} % (<= 0.5 %)")
sys.exit(0 if ok else 1)
EOF2
exit $fail
