"""Readers and writers against known content: a user ROM written and read back, case tables against vicms's own, and a
results file of a tiny case whose exact answer is known (a free mass under a constant force)."""
import numpy as np
import pytest

import vicms
from vicms import files


def test_units():
    u = vicms.Units.parse("N-mm-t-s")
    assert (u.force, u.length, u.mass, u.time) == ("N", "mm", "t", "s")
    assert u.label("energy") == " [N\u00b7mm]" and u.of("acceleration") == "mm/s\u00b2" and u.of("compliance") == "mm/N"
    si = vicms.Units.parse("SI")
    assert (si.force, si.length) == ("N", "m")
    assert vicms.Units.parse("").label("length") == ""
    assert files.quantity_kind("amplitude_n19278_x") == "length" and files.quantity_kind("max_contact_force") == "force"
    assert files.quantity_kind("peak_frequency_mass") == "frequency" and files.quantity_kind("points") == "count"


def test_user_rom_round_trip(tmp_path):
    """The UserROM builder's matrices, contact table, loads and outputs read back exactly."""
    rom = vicms.UserROM(units="N-mm-t-s")
    n, t1, t2 = rom.contact(dims=3, normal_stiffness=50.0, tangential_stiffness=0.0)
    (b,) = rom.contact(dims=1, kind="bilateral", normal_stiffness=7.0)
    x = rom.coordinate(2.0, name="x")
    y = rom.coordinate(3.0, name="y")
    rom.spring(x, None, 10.0)
    rom.spring(x, y, 4.0)
    rom.spring(t1, x, 6.0)
    rom.spring(t2, y, 8.0)
    rom.dashpot(y, None, 0.5)
    rom.load("push", {x: 1.0, y: -2.0})
    rom.output("gap", {n: 1.0})
    path = rom.write(tmp_path / "r.h5")
    r = vicms.read_rom(path)
    assert r.method == "user_massless" and r.massless and r.n_boundary == 4 and r.n_modes == 2
    assert r.units.length == "mm"
    K = np.zeros((6, 6))
    for i, j, k in [(0, None, 50.0), (3, None, 7.0), (4, None, 10.0), (4, 5, 4.0), (1, 4, 6.0), (2, 5, 8.0)]:
        K[i, i] += k
        if j is not None:
            K[j, j] += k
            K[i, j] -= k
            K[j, i] -= k
    assert np.array_equal(r.K, K)
    assert np.array_equal(r.M, np.diag([0, 0, 0, 0, 2.0, 3.0]))
    assert r.D[5, 5] == 0.5 and np.count_nonzero(r.D) == 1
    assert list(r.contact["dims"]) == [3, 1] and list(r.contact["offsets"]) == [0, 3] and list(r.contact["kinds"]) == [0, 1]
    assert np.array_equal(r.loads["push"], [0, 0, 0, 0, 1.0, -2.0]) and np.array_equal(r.outputs["gap"], np.eye(6)[0])
    with pytest.raises(ValueError, match="declare the contacts before"):
        rom.contact(dims=1)
    with pytest.raises(files.FileFormatError, match="not a vicms results file"):
        vicms.read_results(path)


def test_write_user_rom_wrapper(tmp_path):
    """scripts/write_user_rom.py's examples come from the package: the stop oscillator as docs/hb.md gives it."""
    vicms.userrom.stop(tmp_path / "stop.h5")
    r = vicms.read(tmp_path / "stop.h5")
    k1 = 4 * np.pi ** 2
    assert np.allclose(r.K, [[3 * k1, -3 * k1], [-3 * k1, 4 * k1]], rtol=0, atol=0)
    assert r.frequencies_hz.tolist() == [2.0] and r.method == "user_massless"


def test_case_table_options():
    c = vicms.Cases().grid("a", 1, 2, 3).grid("b", 1, 100, 3, log=True).values("c", [0.5, 0.25])
    o = c.options()
    assert o["cases_grid"] == "a:1:2:3,b:1:100:3:log" and o["cases_values"] == "c:0.5/0.25"
    t = c.table()
    assert t.columns == ["a", "b", "c"] and len(t) == 18
    assert np.allclose(t.data[:4], [[1, 1, 0.5], [1, 1, 0.25], [1, 10, 0.5], [1, 10, 0.25]], rtol=1e-15)
    assert t["a"][-1] == 2 and t["b"][-1] == 100
    with pytest.raises(ValueError, match="made by vicms"):
        vicms.Cases().sweep("drive", 1, 2).table()


def test_results_of_a_free_mass(tmp_path, vicms_bin):
    """Two free masses m under constant forces F/2 from rest: x = F t^2 / (4 m) exactly (the Moreau-Jean scheme with theta = 1/2 integrates
    a constant acceleration exactly); three cases of a grid over the force, each x(t) read back with its names and
    units, the case table equal to the one Cases predicts."""
    m = 2.0
    rom = vicms.UserROM(units="N-mm-t-s")
    rom.contact(dims=1, mass=m)  # a gap coordinate far from its obstacle
    x = rom.coordinate(m)
    rom.load("push", {0: 0.5, x: 0.5})
    rom.output("x", {x: 1.0})
    rom.write(tmp_path / "mass.h5")
    cases = vicms.Cases().values("load_push_amplitude", [1.0, 2.0, 4.0])
    opts = dict(rom_file="mass.h5", case_loads="push", load_push_type="constant", contact_gap=1e6, step_type="moreau", step_moreau_variant="theta", step_theta=0.5,
                step_dt=0.01, step_end_time=1.0, results_file="free.h5", cases_quiet=True, **cases.options())
    run = vicms.run("simulate", opts, cwd=tmp_path)
    r = run.results
    assert isinstance(r, vicms.Results) and r.units.length == "mm"
    assert r.parameters.columns == cases.table().columns and np.array_equal(r.parameters.data, cases.table().data)
    assert r.done == [0, 1, 2]
    for k, F in enumerate((1.0, 2.0, 4.0)):
        c = r.case(k)
        exact = F * c.t ** 2 / (4 * m)  # half the load on each mass
        assert c.outputs.columns == ["x"] and c.outputs.unit("x") == "mm" and c.energy.unit("kinetic") == "N\u00b7mm"
        assert np.abs(c.outputs["x"] - exact).max() <= 1e-12 * exact.max()
        # the outputs' velocities (cases/<k>/velocities): v = F t / (2 m), exact for the same reason, in mm/s
        assert c.velocities.columns == ["x"] and c.velocities.unit("x") == "mm/s"
        assert np.abs(c.velocities["x"] - F * c.t / (2 * m)).max() <= 1e-12 * F / (2 * m)
        assert c.energy.columns[-2:] == ["balance_error", "numerical_dissipation"]
        q = r.quantities
        assert abs(q["max_x"][k] - exact.max()) <= 1e-12 * exact.max() and q.unit("max_x") == "mm"


def test_run_reports_vicms_errors(tmp_path, vicms_bin):
    with pytest.raises(vicms.VicmsError, match="unknown option -step_dtt"):
        vicms.run("simulate", {"step_dtt": 1}, cwd=tmp_path)
