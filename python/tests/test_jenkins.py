"""The worked example of docs/python.md: a unit mass on a spring k = (2 pi)^2 N/m to the ground and on a Jenkins element
(kt = 3k in series with a Coulomb slider of limit mu N = 0.5 x 2 N = 1 N), a dashpot c = 0.2 pi N s/m, driven by 1 N at
frequency f. Its frequency response by `vicms hb` (H = 15, N = 256) against the exact periodic response (event-driven
time integration with scipy, vicms.reference.periodic_response) at branch points in stick (0.8 Hz) and in slip, against
the single-harmonic describing function (Caughey 1960), and the constant-frequency cases of `vicms simulate` (leapfrog,
dt = 1 ms, 60 s) against the branch."""
import numpy as np
import pytest

import vicms
from vicms import reference

M, K, KT, C, F, MU, N = 1.0, 4 * np.pi ** 2, 12 * np.pi ** 2, 0.2 * np.pi, 1.0, 0.5, 2.0
FY = MU * N
CASE = dict(rom_file="jenkins.h5", case_loads="drive", load_drive_type="harmonic", load_drive_amplitude=F,
            load_drive_frequency=1.0, cases_quiet=True, results_overwrite=True, **vicms.friction_options(MU, N))
HB = dict(hb_freq_range="0.5,3", hb_harmonics=15, hb_samples=256, hb_max_freq_step=0.02, results_file="hb.h5")
SWEEP = dict(step_type="leapfrog", step_dt=1e-3, step_end_time=60, summary_steady_fraction=0.1, summary_output="mass",
             cases_keep_series=False, results_file="grid.h5")
NEAR = (0.8, 1.3, 1.5, 2.0, 2.5)  # stick, then slip on both sides of the peak


def test_describing_function_is_the_loop():
    """The closed form against the first harmonic of the elastic-perfectly plastic loop traced numerically."""
    for a in (0.5 * FY / KT, 2 * FY / KT, 10 * FY / KT):
        th = np.linspace(0, 4 * np.pi, 100001)  # two cycles: the second is the steady loop
        x = a * np.cos(th)
        f = np.empty_like(x)
        z = x[0] - FY / KT  # start on the loop's upper branch end
        for i, xi in enumerate(x):
            ft = KT * (xi - z)
            if abs(ft) > FY:
                z = xi - np.sign(ft) * FY / KT
                ft = np.sign(ft) * FY
            f[i] = ft
        half = th >= 2 * np.pi
        w = np.gradient(th[half])
        c1 = np.sum(f[half] * np.cos(th[half]) * w) / np.pi
        s1 = np.sum(f[half] * np.sin(th[half]) * w) / np.pi
        keq, kd = reference.describing_function(a, KT, FY)
        # f = k_eq x + (k_d / w) dx/dt: the quadrature harmonic is -k_d a sin(theta)
        assert abs(c1 - keq * a) <= 1e-4 * KT * a and abs(s1 + kd * a) <= 1e-4 * KT * a


@pytest.fixture(scope="module")
def jenkins(tmp_path_factory, vicms_bin):
    d = tmp_path_factory.mktemp("jenkins")
    vicms.jenkins(d / "jenkins.h5", m=M, k=K, kt=KT, c=C)
    hb = vicms.run("hb", dict(CASE, **HB), cwd=d).results.branch()
    f = hb.frequency_hz
    pick = [int(np.argmin(np.abs(f - x))) for x in NEAR]
    grid = vicms.run("simulate", dict(CASE, **SWEEP, **vicms.Cases().values("load_drive_frequency", f[pick]).options()),
                     cwd=d).results
    return d, hb, pick, grid


def test_hb_against_exact(jenkins):
    _, hb, pick, _ = jenkins
    a = hb.amplitude["mass"]
    for i in pick:
        w = 2 * np.pi * hb.frequency_hz[i]
        t, x, periods = reference.periodic_response(w, M, K, KT, FY, C, F, samples=2000)
        exact = 0.5 * np.ptp(x)
        df = reference.describing_amplitudes(w, M, K, KT, FY, C, F)
        assert len(df) == 1
        stick = exact <= FY / KT
        assert (hb.slip_fraction[i, 0] == 0) == stick
        # harmonic balance: 15 harmonics of the exact motion (measured <= 6.8e-5, at 1.30 Hz); the describing function keeps one
        # harmonic (measured <= 3.4 % in slip, exact in stick)
        assert abs(a[i] - exact) <= 2e-4 * exact, (hb.frequency_hz[i], a[i], exact)
        assert abs(df[0] - exact) <= (1e-6 if stick else 0.04) * exact


def test_grid_against_hb(jenkins):
    _, hb, pick, grid = jenkins
    assert grid.done == list(range(len(pick)))
    ts = grid.quantities["amplitude_mass"]
    assert np.allclose(grid.parameters["load_drive_frequency"], hb.frequency_hz[pick], rtol=1e-15, atol=0)
    for k, i in enumerate(pick):
        assert abs(ts[k] - hb.amplitude["mass"][i]) <= 5e-4 * hb.amplitude["mass"][i]  # measured <= 6.3e-5


def test_plot_branch_over_grid(jenkins):
    pytest.importorskip("matplotlib")
    import vicms.plot
    d, _, _, _ = jenkins
    png = vicms.plot.results(d / "hb.h5", kinds=["hb"], overlay=d / "grid.h5", outdir=d / "plots")
    assert [p.rsplit("/", 1)[-1] for p in png] == ["hb_hb.png"]
    with open(png[0], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
