"""Read a `vicms fields` series with a real XDMF reader (ParaView's vtkXdmf3Reader, or VTK's when it has one) and check it
against the results file it came from, independently of the field recovery: usage
  pvpython fields_check.py SERIES.xmf RESULTS.h5 CASE NPOINTS NCELLS OUTPUT_NODE_ID:DIR:COLUMN ... [contact NODE_ID:COLUMN ...]
- point and cell counts equal NPOINTS and NCELLS (computed by the test from the mesh's sizes);
- the number of time steps and the time values equal /cases/CASE/t (1e-12 relative);
- the displacement at each named node (found by its coordinates in /fields' node_ids order) equals the ROM output
  /cases/CASE/outputs[:, COLUMN] at every time step (1e-10 relative to the output's largest magnitude);
- the contact force point data at each named contact node equals /cases/CASE/forces[:, COLUMN] (1e-10 relative)."""
import sys

import h5py
import numpy as np

try:
    from vtkmodules.vtkIOXdmf3 import vtkXdmf3Reader
except ImportError:
    sys.exit("no vtkXdmf3Reader in this python")
from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline
from vtkmodules.util.numpy_support import vtk_to_numpy

xmf, results, npts, ncells = sys.argv[1], sys.argv[2], int(sys.argv[4]), int(sys.argv[5])
# CASE, or CASE@POINT:SAMPLES for one period of the orbit of a vicms hb branch point
case, point, samples = sys.argv[3], None, None
if "@" in case:
    case, rest = case.split("@")
    point, samples = (int(v) for v in rest.split(":"))
case = int(case)
items = sys.argv[6:]
fail = 0
r = vtkXdmf3Reader()
r.SetFileName(xmf)
r.UpdateInformation()
ts = np.array(r.GetOutputInformation(0).Get(vtkStreamingDemandDrivenPipeline.TIME_STEPS()))
with h5py.File(results, "r") as f:
    g = f["cases/%d" % case]
    if point is None:
        t, out, forces = g["t"][()], g["outputs"][()], (g["forces"][()] if "forces" in g else None)
    else:
        # the outputs' harmonics that vicms hb recorded (output rows times the harmonics of q, src/hb/continuation.c), summed
        # here at the samples of one period: a0 + sum a_h cos(h theta) + b_h sin(h theta)
        H = int(g.attrs["harmonics_H"])
        fr = g["frequency_hz"][point]
        hc = g["harmonics"][point].reshape(-1, 2 * H + 1)
        theta = 2 * np.pi * np.arange(samples) / samples
        t = np.arange(samples) / (samples * fr)
        out = np.tile(hc[:, 0], (samples, 1))
        for h in range(1, H + 1):
            out += np.outer(np.cos(h * theta), hc[:, 2 * h - 1]) + np.outer(np.sin(h * theta), hc[:, 2 * h])
        forces = None
ids = h5py.File(xmf[:-4] + ".h5", "r")["mesh/node_ids"][()]
if len(ts) != len(t) or np.abs(ts - t).max() > 1e-12 * np.abs(t).max():
    print("FAIL time steps: %d read, %d in the results (max diff %g)" % (len(ts), len(t), np.abs(ts - t).max() if len(ts) == len(t) else -1))
    fail = 1
else:
    print("ok   %d time steps from %g to %g s" % (len(ts), ts[0], ts[-1]))
disp = []
force = []
for k, tk in enumerate(ts):
    r.UpdateTimeStep(tk)
    o = r.GetOutputDataObject(0)
    if k == 0:
        if o.GetNumberOfPoints() != npts or o.GetNumberOfCells() != ncells:
            print("FAIL counts: %d points, %d cells read, expected %d, %d" % (o.GetNumberOfPoints(), o.GetNumberOfCells(), npts, ncells))
            fail = 1
        else:
            print("ok   %d points, %d cells" % (npts, ncells))
        names = [o.GetPointData().GetArrayName(i) for i in range(o.GetPointData().GetNumberOfArrays())]
        print("     point data: %s" % names)
    pd = o.GetPointData()
    disp.append(vtk_to_numpy(pd.GetArray("displacement [m]")).copy())
    if pd.GetArray("contact force [N]") is not None and forces is not None:
        force.append(vtk_to_numpy(pd.GetArray("contact force [N]")).copy())
disp = np.array(disp)
mode = None
for it in items:
    if it == "contact":
        mode = "contact"
        continue
    p = it.split(":")
    node = int(np.flatnonzero(ids == int(p[0]))[0])
    if mode == "contact":
        col = int(p[1])
        a, b = np.array(force)[:, node], forces[:, col]
        what = "contact force at node %s" % p[0]
    else:
        d, col = "xyz".index(p[1]), int(p[2])
        a, b = disp[:, node, d], out[:, col]
        what = "displacement %s at node %s vs output column %d" % (p[1], p[0], col)
    err = np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)
    ok = err <= 1e-10 and np.abs(b).max() > 0
    print("%s %s: relative error %.2e over %d steps (largest |value| %.4e)" % ("ok  " if ok else "FAIL", what, err, len(b), np.abs(b).max()))
    fail |= not ok
sys.exit(1 if fail else 0)
