"""vicms.read_fields on a `vicms fields` series of a simulate case (docs/fields.md): a cantilever box of 2 hexahedra with all
its nodes kept, a case with its ROM coordinates recorded; the series read back: 12 points, 2 hexahedra, the times of the
case, the displacement at the two output nodes equal to the ROM outputs simulate recorded (1e-10), the normal contact
force at the contact node equal to the recorded one, units from the ROM; vicms.read dispatches on the format; a file of
another format is refused."""
import numpy as np
import pytest

import vicms


def test_fields_of_a_simulate_case(tmp_path, vicms_bin):
    box = dict(mesh_box_cells="1,1,2", mesh_box_lengths="0.01,0.02,0.1", model_young=2e11, model_poisson=0.3, model_density=7800,
               model_clamp="zmin", cms_type="macneal", cms_num_modes=4, cms_contact_set="xmax_ymax_zmax", cms_contact_normal="1,0,0",
               cms_damping_ratio=0.01, cms_forces="xmax_ymax_zmax:x:1", cms_outputs="xmax_ymax_zmax:x,xmin_ymin_zmax:y",
               cms_units="N-m-kg-s", cms_fields="all", rom_file="box.h5")
    vicms.run("reduce", box, cwd=tmp_path)
    L = "load_xmax_ymax_zmax"
    case = {"rom_file": "box.h5", "case_loads": "xmax_ymax_zmax", L + "_type": "harmonic", L + "_amplitude": 100, L + "_frequency": 300,
            "contact_gap": 1e-7, "step_end_time": 2e-3, "step_dt": 2e-7, "step_output_every": 500, "step_record_q": True,
            "results_file": "res.h5"}
    r = vicms.run("simulate", case, cwd=tmp_path).results.case(0)
    run = vicms.run("fields", {"rom_file": "box.h5", "results_file": "res.h5", "fields_file": "f.h5"}, cwd=tmp_path)
    F = run.results
    assert isinstance(F, vicms.Fields) and F.title == "case 0" and F.body is None
    assert F.points.shape == (12, 3) and [c[0] for c in F.cells] == ["hexahedron", "hexahedron"]
    assert np.array_equal(F.times, r.t) and len(F.times) == 21
    assert F.units == {"displacement": "m", "contact force": "N"} and F.label("displacement") == "displacement [m]"
    u = F.point_data["displacement"]
    assert u.shape == (21, 12, 3)
    tip = int(np.argmax(F.points.sum(1)))  # xmax_ymax_zmax
    corner = int(np.argmax(-F.points[:, 0] - F.points[:, 1] + F.points[:, 2]))  # xmin_ymin_zmax
    for col, (i, d) in enumerate(((tip, 0), (corner, 1))):
        out = r.outputs.data[:, col]
        assert np.abs(out).max() > 0 and np.abs(u[:, i, d] - out).max() <= 1e-10 * np.abs(out).max()
    assert F.node(F.node_ids[tip]) == tip
    f = F.point_data["contact force"]
    assert f[:, tip].max() > 0 and np.array_equal(f[:, tip], r.forces.data[:, 0]) and not np.delete(f, tip, axis=1).any()
    # the same through the .xmf path and vicms.read
    G = vicms.read(tmp_path / "f.h5")
    assert isinstance(G, vicms.Fields) and np.array_equal(G.point_data["displacement"], u)
    with pytest.raises(vicms.FileFormatError, match="not a vicms fields file"):
        vicms.read_fields(tmp_path / "box.h5")
    with pytest.raises(KeyError, match="not kept"):
        F.node(99999)
