"""The plotting functions (issue 24): -o is a folder everywhere, PNGs at 150 dpi or more, units read from the files (not
hard-coded), a note on series recorded every N-th step, colour bars on mode shapes and spectrograms, titles wrapped."""
import os

import h5py
import numpy as np
import pytest

import vicms

plot = pytest.importorskip("vicms.plot")


@pytest.fixture
def figures(monkeypatch):
    """Each figure saved, with the texts of its axes (labels, titles, colour bar labels) and its size in pixels."""
    seen = []
    real = plot.save

    def save(fig, out, dpi=plot.DPI):
        texts = []
        for ax in fig.axes:
            texts += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), ax.get_title("left")]
        texts.append(fig._suptitle.get_text() if fig._suptitle else "")
        kinds = [type(c).__name__ for ax in fig.axes for c in ax.collections]
        seen.append(dict(out=out, texts=texts, dpi=dpi, kinds=kinds, n_axes=len(fig.axes), fig=fig))
        return real(fig, out, dpi)

    monkeypatch.setattr(plot, "save", save)
    return seen


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_o_is_a_folder(tmp_path):
    with pytest.raises(plot.PlotError, match="-o is the folder the PNGs go to"):
        plot.output_folder("x.h5", "out.png")
    assert plot.output_folder(str(tmp_path / "x.h5"), None) == str(tmp_path)


def write_modes(path):
    xyz = np.array([[x, y, z] for z in (0, 1, 2) for y in (0, 1) for x in (0, 1)], dtype=float)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "vicms-modes"
        f.attrs["version"] = "0.1.0"
        f.attrs["n_modes"] = 2
        f["frequencies_hz"] = [10.0, 25.0]
        f["eigenvalues"] = (2 * np.pi * np.array([10.0, 25.0])) ** 2
        f["mesh/coordinates"] = xyz
        f["mesh/node_ids"] = np.arange(1, len(xyz) + 1)
        f["modes/1"] = np.column_stack([xyz[:, 2] ** 2, 0 * xyz[:, 2], 0 * xyz[:, 2]])
        f["modes/2"] = np.column_stack([0 * xyz[:, 2], xyz[:, 2] ** 3, 0 * xyz[:, 2]])


def test_modes(tmp_path, figures):
    write_modes(tmp_path / "box.h5")
    m = vicms.read_modes(tmp_path / "box.h5")
    assert m.shapes.shape == (2, 12, 3) and m.shapes[1, -1, 1] == 8.0
    out = plot.modes(tmp_path / "box.h5", outdir=tmp_path / "png")
    assert out == [str(tmp_path / "png" / "box_modes.png")]
    fig = figures[0]
    assert fig["dpi"] >= 150 and sum("|u| (mass-normalized mode)" in t for t in fig["texts"]) == 2  # a colour bar per mode
    w, h = png_size(out[0])
    assert w >= 150 * 4.6 * 2 * 0.9  # bbox not tight: the full figure at 150 dpi


def write_slide(folder):
    with h5py.File(folder / "bodies.h5", "w") as f:
        f.attrs["format"] = "vicms-bodies"
        f.attrs["bodies"] = "beam1,beam2"
        for b in ("beam1", "beam2"):
            g = f.create_group(f"bodies/{b}")
            g.attrs["units"] = "N-mm-t-s"
            g["K"] = np.eye(2)
    n, dt = 4096, 1e-5
    t = dt * np.arange(1, n + 1)
    with h5py.File(folder / "run.h5", "w") as f:
        f.attrs["format"] = "vicms-slide"
        for k, v in dict(version=1, bodies_file="bodies.h5", mu=0.3, dt=dt, record_every=1, noise_rms=0.0).items():
            f.attrs[k] = v
        f["t"] = t.reshape(-1, 1)
        y = 1e-3 * np.sin(2 * np.pi * 3000 * t)
        f["outputs"] = np.column_stack([y, 2 * y])
        f["output_names"] = np.array([b"beam1/a", b"beam2/tip"])
        for name, v in (("position", 50 + 30 * t), ("normal", 2 + 0 * t), ("slip_velocity", 30 + 0 * t), ("status", 3 + 0 * t)):
            f[f"contact/{name}"] = v.reshape(-1, 1)


def test_slide_units_and_spectrogram(tmp_path, figures):
    write_slide(tmp_path)
    s = vicms.read_slide(tmp_path / "run.h5")
    assert s.units.length == "mm" and s.outputs.columns == ["beam1/a", "beam2/tip"] and s.outputs.unit("beam2/tip") == "mm"
    out = plot.slide([tmp_path / "run.h5"], fmax=10000, nfft=256)
    assert out == [str(tmp_path / "run_slide.png")]
    fig = figures[0]
    texts = " | ".join(fig["texts"])
    for want in ("beam2/tip acceleration [mm/s\u00b2]", "beam2/tip [mm]", "normal force [N]", "contact position s [mm]",
                 "sliding velocity [mm/s]", "PSD of the acceleration [dB re 1 (mm/s\u00b2)\u00b2/Hz]"):
        assert want in texts, want
    assert "QuadMesh" in fig["kinds"] and fig["dpi"] >= 150
    # another unit system: read, not assumed
    with h5py.File(tmp_path / "bodies.h5", "r+") as f:
        for g in f["bodies"].values():
            g.attrs["units"] = "N-m-kg-s"
    plot.slide(tmp_path / "run.h5", outdir=tmp_path / "si", nfft=256)
    assert "contact position s [m]" in figures[1]["texts"]


@pytest.fixture(scope="module")
def sampled(tmp_path_factory, vicms_bin):
    """A damped oscillator on a wall (a 1D contact), its gap and the load's amplitude sampled (20 cases, series kept,
    recorded every 5th step), units N-mm-t-s."""
    d = tmp_path_factory.mktemp("sampled")
    rom = vicms.UserROM(units="N-mm-t-s")
    (c,) = rom.contact(dims=1)
    x = rom.coordinate(1.0)
    rom.spring(c, x, 1000.0)
    rom.spring(x, None, 100.0)
    rom.dashpot(x, None, 1.0)
    rom.load("drive", {x: 1.0})
    rom.output("x", {x: 1.0})
    rom.write(d / "osc.h5")
    cases = vicms.Cases().random("contact_gap", "uniform", 0.005, 0.02).random("load_drive_amplitude", "normal", 1, 0.1).samples(20)
    opts = dict(rom_file="osc.h5", case_loads="drive", load_drive_type="harmonic", load_drive_frequency=1.6,
                step_type="leapfrog", step_dt=1e-3, step_end_time=2, step_output_every=5, results_file="uq.h5",
                cases_quiet=True, **cases.options())
    return d, vicms.run("simulate", opts, cwd=d).results


def test_results_units_and_notes(sampled, figures):
    d, r = sampled
    assert r.n_cases == 20 and len(r.done) == 20 and len(r.case(3).t) == 401
    out = plot.results(d / "uq.h5", kinds=["time", "energy", "uq"], cases=[3], outdir=d / "png")
    assert [os.path.basename(p) for p in out] == ["uq_time_case3.png", "uq_energy_case3.png", "uq_uq.png"]
    time_fig, energy_fig, uq_fig = figures
    t = " | ".join(time_fig["texts"])
    assert "recorded every 5th step: contact-force spikes between records are not shown" in t
    assert "normal contact force [N]" in t and "output displacement [mm]" in t and "time [s]" in t
    e = " | ".join(energy_fig["texts"])
    assert "balance error [N\u00b7mm]" in e and "energy [N\u00b7mm]" in e
    u = " | ".join(uq_fig["texts"])
    for q in ("amplitude_x [mm]", "max_contact_force [N]", "min_gap [mm]"):
        assert q in u, q
    for f in figures:
        assert f["dpi"] >= 150
        png_size(f["out"])


def test_long_titles_wrap(sampled, figures):
    d, _ = sampled
    fig = plot.plt.figure(figsize=(4, 3))
    title = plot.wrap("x" * 10 + " word" * 60, fig)
    assert max(len(line) for line in title.split("\n")) <= 4 * 72 / (0.55 * 12) and title.count("\n") >= 2
    plot.plt.close(fig)


def test_cea_units_and_map(tmp_path, figures):
    """A cea file (two positions, three modes, a 2 x 3 FRF map) on bodies in N-mm-t-s: the map's colour bar in dB re
    1 mm/N (displacement) or 1 (mm/s^2)/N (acceleration), positions in mm; in N-m-kg-s, m/N."""
    write_slide(tmp_path)  # the bodies file
    with h5py.File(tmp_path / "c.h5", "w") as f:
        f.attrs["format"] = "vicms-cea"
        f.attrs["bodies_file"] = "bodies.h5"
        f.attrs["mu"] = 0.3
        f["positions"] = np.array([[10.0], [20.0]])
        f["frequency_hz"] = np.array([[100.0, 200, 300], [110, 210, 310]])
        f["real"] = np.array([[-1.0, 2, -3], [-1, -2, -3]])
        f["frf/frequencies_hz"] = np.array([[50.0], [150.0], [250.0]])
        f["frf/inputs"] = np.array([b"beam1:1:x"])
        f["frf/outputs"] = np.array([b"beam2:3:y"])
        f["frf/H_re"] = np.arange(1.0, 7.0).reshape(2, 3)
        f["frf/H_im"] = np.zeros((2, 3))
        f["frf"].attrs["quantity"] = "displacement"
    c = vicms.read_cea(tmp_path / "c.h5")
    assert c.units.length == "mm" and c.frf["H"].shape == (2, 3, 1, 1) and c.frf["H"][1, 2, 0, 0] == 6
    out = plot.cea(tmp_path / "c.h5")
    assert out == [str(tmp_path / "c_cea.png")]
    t = " | ".join(figures[0]["texts"])
    assert "contact position s [mm]" in t and "|H| displacement [dB re 1 mm/N]" in t and figures[0]["dpi"] >= 150
    with h5py.File(tmp_path / "c.h5", "r+") as f:
        f["frf"].attrs["quantity"] = "acceleration"
    plot.cea(tmp_path / "c.h5", outdir=tmp_path / "acc")
    assert "|H| acceleration [dB re 1 (mm/s\u00b2)/N]" in figures[1]["texts"]
