"""Check a `vicms fields` series of two bodies (a cea mode shape or a slide history) read by a real XDMF reader (ParaView's
vtkXdmf3Reader) and by the package's reader (python/vicms/fields.py), against NumPy reconstructions from the files it came
from, independently of vicms's recovery: usage
  pvpython fields_bodies_check.py cea SERIES.xmf CEA.h5 BODIES.h5 NPOINTS NCELLS NSAMPLES POSITION MODE -- \
                                  slide SERIES.xmf SLIDE.h5 BODIES.h5 NPOINTS NCELLS EVERY -- ...
- point and cell counts, the number of time levels and their values (cea: s / (N f) for the mode's f; slide: the records' t);
- at two levels, at a boundary node and an interior node of each body, the vector field equal to the basis rows of the bodies
  file (bodies/NAME/fields/basis) times the coordinates: cea Re(phi e^{i theta}) from /vectors/re and im, slide /q/NAME (1e-10
  of the largest entry); cea: the boundary nodes also equal cea's own per-body displacements vectors/bodies/NAME/u_re, u_im;
  slide: the ROM outputs of the history at their nodes, the slave's normal force as point data, the slave body's points
  moved by the start shift;
- the package's reader gives the same times, points, cells and arrays as the XDMF reader, with units."""
import os
import sys

import h5py
import numpy as np

try:
    from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader
except ImportError:
    sys.exit("no vtkXdmf3Reader in this python")
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import vicms  # noqa: E402

fail = 0


def check(ok, msg):
    global fail
    print(("ok   " if ok else "FAIL ") + msg)
    fail |= not ok


def txt(v):
    return v.decode() if isinstance(v, bytes) else str(v)



def series(args):
    """One series: KIND SERIES.xmf RESULTS.h5 BODIES.h5 NPOINTS NCELLS, then NSAMPLES POSITION MODE (cea) or EVERY (slide)."""
    kind, xmf, results, bodies_file, npts, ncells = args[:6]
    npts, ncells = int(npts), int(ncells)
    print("--- %s (%s)" % (os.path.basename(xmf), kind))
    B = h5py.File(bodies_file, "r")
    names = txt(B.attrs["bodies"]).split(",")
    basis = {b: B["bodies/%s/fields/basis" % b][()] for b in names}
    R = h5py.File(results, "r")
    # the levels and the coordinates of each level, body by body (the coupled coordinates are the bodies' one after the other)
    if kind == "cea":
        N, p, m = (int(v) for v in args[6:9])
        row = int(R["vectors/index"][p, m])
        f = R["frequency_hz"][p, m]
        t = np.arange(N) / (N * f)
        re, im = R["vectors/re"][row], R["vectors/im"][row]
        theta = 2 * np.pi * np.arange(N) / N
        q = np.outer(np.cos(theta), re) - np.outer(np.sin(theta), im)
        field, levels = "mode shape", (0, N // 3)
    else:
        every = int(args[6])
        t = R["t"][::every].ravel()
        q = np.hstack([R["q/%s" % b][::every] for b in names])
        field, levels = "displacement", (len(t) // 4, len(t) - 1)
    off = np.cumsum([0] + [basis[b].shape[1] for b in names])

    r = vtkXdmf3Reader()
    r.SetFileName(xmf)
    r.UpdateInformation()
    ts = np.array(r.GetOutputInformation(0).Get(vtkStreamingDemandDrivenPipeline.TIME_STEPS()))
    check(len(ts) == len(t) and np.abs(ts - t).max() <= 1e-12 * np.abs(t).max(), "%d time levels from %g to %g s (expected %d)" % (len(ts), ts[0], ts[-1], len(t)))
    F = vicms.read_fields(xmf)
    body = F.body
    for k in levels:
        r.UpdateTimeStep(ts[k])
        o = r.GetOutputDataObject(0)
        pd = o.GetPointData()
        if k == levels[0]:
            check((o.GetNumberOfPoints(), o.GetNumberOfCells()) == (npts, ncells), "%d points, %d cells (expected %d, %d)" % (o.GetNumberOfPoints(), o.GetNumberOfCells(), npts, ncells))
            arrays = sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
            want = sorted(["%s [mm]" % field, "body"] + (["contact force [N]"] if kind == "slide" else []))
            check(arrays == want, "point data %s" % arrays)
            X = vtk_to_numpy(o.GetPoints().GetData())
            check(np.array_equal(X, F.points) and len(F.cells) == ncells and F.units[field] == "mm", "the package's reader: the same points, %d cells, %s in %s" % (len(F.cells), field, F.units[field]))
            check(np.array_equal(vtk_to_numpy(pd.GetArray("body")), body), "the body of each node: %d of %s, %d of %s" % ((body == 0).sum(), names[0], (body == 1).sum(), names[1]))
        U = vtk_to_numpy(pd.GetArray("%s [mm]" % field))
        check(np.array_equal(U, F.point_data[field][k]), "level %d: the package's reader gives the XDMF reader's %s" % (k, field))
        for b, name in enumerate(names):
            g = B["bodies/%s/fields" % name]
            ids = g["node_ids"][()]
            bnodes = B["bodies/%s/boundary/node_ids" % name][()]
            interior = [i for i in ids if i not in set(bnodes)]
            # a boundary node, and the interior node that moves most at this level (not one of a clamped edge)
            move = {i: np.abs(basis[name][3 * j:3 * j + 3] @ q[k, off[b]:off[b + 1]]).max() for j, i in enumerate(ids) if i in set(interior)}
            for nid in (bnodes[len(bnodes) // 2], max(move, key=move.get)):
                j = int(np.flatnonzero(ids == nid)[0])
                ref = (basis[name][3 * j:3 * j + 3] @ q[k, off[b]:off[b + 1]])
                i = F.node(nid, name)
                scale = np.abs(q[k, off[b]:off[b + 1]]).max()
                err = np.abs(U[i] - ref).max() / scale
                check(err <= 1e-10 and np.abs(ref).max() > 0, "level %d, t = %.6g s, %s node %d: %s (%.4e, %.4e) against B q, relative %.1e" % (k, ts[k], name, nid, field, U[i][0], U[i][1], err))
            if kind == "cea":
                # cea's own displacements of the boundary nodes (the coupled coordinates themselves), at every boundary node
                v = R["vectors/bodies/%s" % name]
                ur, ui = v["u_re"][row], v["u_im"][row]
                th = 2 * np.pi * k / N
                ref = (ur * np.cos(th) - ui * np.sin(th)).reshape(-1, 2)
                got = np.array([U[F.node(nid, name)][:2] for nid in v["node_ids"][()]])
                err = np.abs(got - ref).max() / np.abs(ref).max()
                check(err <= 1e-12, "level %d, %s: the %d boundary nodes equal cea's vectors/bodies/%s u_re, u_im (relative %.1e)" % (k, name, len(ref), name, err))
    if kind == "slide":
        # the outputs the history recorded at their nodes, every level; the slave's normal force; the start shift
        onames = [txt(x) for x in R["output_names"][()]]
        out = R["outputs"][::every]
        for c, on in enumerate(onames):
            name, rest = on.split("/")
            nid, d = int(rest[1:].split("_")[0]), "xy".index(rest[-1])
            i = F.node(nid, name)
            err = np.abs(F.point_data[field][:, i, d] - out[:, c]).max() / np.abs(out[:, c]).max()
            check(err <= 1e-10, "output %s over %d levels (largest %.4e mm): relative %.1e" % (on, len(out), np.abs(out[:, c]).max(), err))
        slave = txt(R.attrs["slave"]).split(":")[0]
        sid = int(R["contact/slave_ids"][0])
        i = F.node(sid, slave)
        fn = R["contact/normal"][::every, 0]
        check(np.array_equal(F.point_data["contact force"][:, i], fn) and fn.max() > 0 and F.units["contact force"] == "N",
              "contact force [N] at the slave %s node %d equals /contact/normal (up to %.4g N)" % (slave, sid, fn.max()))
        others = np.delete(F.point_data["contact force"], i, axis=1)
        check(not others.any(), "contact force zero at the %d other nodes" % others.shape[1])
        for b, name in enumerate(names):
            sx, sy = R["q/%s" % name].attrs["shift_x"], R["q/%s" % name].attrs["shift_y"]
            x0 = B["bodies/%s/fields/coordinates" % name][()]
            err = np.abs(F.points[body == b] - (x0 + [sx, sy, 0])).max()
            check(err == 0, "%s's points: its mesh moved by the start shift (%g, %g)" % (name, sx, sy))


# the series, separated by "--"
argv, one = sys.argv[1:] + ["--"], []
for a in argv:
    if a == "--":
        if one:
            series(one)
        one = []
    else:
        one.append(a)
sys.exit(1 if fail else 0)
