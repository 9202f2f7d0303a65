"""Reader of a `vicms fields` series (docs/fields.md): the HDF5 file beside its .xmf (format vicms-fields) as NumPy arrays.

A series is a mesh (the kept nodes and the display cells of the ROM file, or of every body of a bodies file) and, per time
level, a vector field (the displacement, or for a cea result the mode shape Re(phi e^{i theta})) and optionally the normal
contact force as point data; each with its unit. read_fields takes the .h5 or the .xmf path.
"""
import os
from dataclasses import dataclass

import numpy as np

from .files import FileFormatError, _attrs, _need, _open, names, text

# XDMF 3 cell codes of the mixed topology: name and number of nodes (0: the count follows the code)
CELL_TYPES = {1: ("vertex", 0), 2: ("polyline", 0), 4: ("triangle", 3), 5: ("quadrilateral", 4), 6: ("tetrahedron", 4),
              7: ("pyramid", 5), 8: ("wedge", 6), 9: ("hexahedron", 8), 34: ("edge_3", 3), 36: ("triangle_6", 6),
              37: ("quadrilateral_8", 8), 38: ("tetrahedron_10", 10), 39: ("pyramid_13", 13), 40: ("wedge_15", 15),
              48: ("hexahedron_20", 20)}


def decode_cells(topology):
    """XDMF's mixed layout (code, [count,] nodes, code, ...) as a list of (type name, node indices)."""
    topo, cells, p = np.asarray(topology, dtype=np.int64).ravel(), [], 0
    while p < len(topo):
        code = int(topo[p])
        if code not in CELL_TYPES:
            raise FileFormatError(f"topology: unknown XDMF cell code {code} at entry {p}")
        name, n = CELL_TYPES[code]
        p += 1
        if n == 0:
            n, p = int(topo[p]), p + 1
        if p + n > len(topo):
            raise FileFormatError(f"topology: cell {len(cells)} ({name}) is cut at entry {p}")
        cells.append((name, topo[p:p + n].copy()))
        p += n
    return cells


@dataclass
class Fields:
    """A fields series: times (s, nt), points (nk x 3, undeformed, the slide's rigid start translation applied), node_ids
    (nk, mesh ids; ids repeat across bodies), body (nk, the body index of each node, or None for one ROM) and bodies (names),
    cells (list of (type, node indices)), point_data (name without unit -> nt x nk x 3 or nt x nk array), units (name ->
    unit), the series' title and attributes."""
    path: str
    title: str
    times: np.ndarray
    points: np.ndarray
    node_ids: np.ndarray
    body: np.ndarray
    bodies: list
    cells: list
    point_data: dict
    units: dict
    attrs: dict

    def node(self, node_id, body=None):
        """The row of the node with mesh id node_id (of body `body`, a name or index, when the series has bodies)."""
        mask = self.node_ids == int(node_id)
        if self.body is not None and body is not None:
            k = self.bodies.index(body) if isinstance(body, str) else int(body)
            mask &= self.body == k
        rows = np.flatnonzero(mask)
        if len(rows) != 1:
            raise KeyError(f"{self.path}: node {node_id}{'' if body is None else ' of body %s' % body} is "
                           f"{'not kept' if not len(rows) else 'ambiguous (give its body)'}")
        return int(rows[0])

    def label(self, name):
        """The name as ParaView shows it: 'displacement [mm]'."""
        return f"{name} [{self.units[name]}]" if self.units.get(name) else name


def read_fields(path):
    """The series at path (FILE.h5 or FILE.xmf); raises FileFormatError naming the file when it is not a vicms fields file."""
    path = os.fspath(path)
    if path.endswith(".xmf"):
        path = path[:-4] + ".h5"
    with _open(path, "vicms-fields") as f:
        attrs = _attrs(f)
        t = np.asarray(_need(f, path, "time")[()], float).ravel()
        x = np.asarray(_need(f, path, "mesh/coordinates")[()], float)
        ids = np.asarray(_need(f, path, "mesh/node_ids")[()]).ravel()
        cells = decode_cells(_need(f, path, "mesh/topology")[()])
        want = int(f["mesh/topology"].attrs.get("num_cells", len(cells)))
        if len(cells) != want:
            raise FileFormatError(f"{path}: mesh/topology holds {len(cells)} cells, its num_cells says {want}")
        body, bodies = None, []
        if "mesh/body" in f:
            body = np.asarray(f["mesh/body"][()]).ravel().astype(int)
            bodies = names(f["mesh/body"].attrs.get("bodies"))
        data, units = {}, {}
        shown = text(f["displacement"].attrs.get("name", "displacement")) if "displacement" in f else ""
        for group, name in (("displacement", shown.split(" [")[0] or "displacement"), ("contact_force", "contact force")):
            if group not in f:
                continue
            g = f[group]
            if len(g) != len(t):
                raise FileFormatError(f"{path}: /{group} has {len(g)} levels, /time {len(t)}")
            data[name] = np.array([np.asarray(g[str(k)][()], float) for k in range(len(t))])
            units[name] = text(g["0"].attrs.get("units", "")) if len(t) else ""
            if data[name].shape[1:2] != (len(x),):
                raise FileFormatError(f"{path}: /{group}/0 has {data[name].shape[1]} rows, the mesh {len(x)} nodes")
        return Fields(path=path, title=text(attrs.get("title", "")), times=t, points=x, node_ids=ids, body=body,
                      bodies=bodies, cells=cells, point_data=data, units=units, attrs=attrs)
