#!/usr/bin/env python3
"""Write a vicms "user ROM": a ROM file (docs/user_rom.md) made from your own matrices instead of a vicms reduction.

As a module:
    from write_user_rom import springs, write_user_rom   # springs(n, [(i, j, k), (i, None, k), ...]): a stiffness matrix
    write_user_rom("my.h5", K, M, D=None, contact_dims=[1, 3], loads={"gravity": f}, outputs={"tip": o},
                   shapes={"translation_x": ones}, massless=False, units="SI", contact_kinds=None)

contact_kinds: one entry per contact, "unilateral" (a gap, the default) or "bilateral" (the row q[offset_j] = 0 held at
every instant, dimension 1); written as contact/kinds (0, 1) only when a contact is bilateral.

The first sum(contact_dims) coordinates of q are the contact coordinates, contact after contact, normal first then the
tangents: the gap of contact j is q[offset_j] + g0 (g0 from -contact_gap and friends); order (permute) your DOFs so.

From the command line it writes the two examples of seed 002 (Brüls, Acary & Cardona 2014):
    write_user_rom.py ball ball.h5      # §10.1: 1 DOF, m = 1, gravity load -10, one contact
    write_user_rom.py stop stop.h5      # the stop oscillator of docs/hb.md: a unit mass on k1 = (2 pi)^2, joined by
                                        # k2 = 3 k1 to its massless contact coordinate (a rigid stop), 2 % damping,
                                        # load "drive" on the mass, output "mass"
    write_user_rom.py bar bar.h5        # §10.3: free bar, E = 900, rho = 1, L = 10, 200 two-node elements (lumped mass),
                                        # contact at its first node, displacements along the contact normal
"""
import sys

import h5py
import numpy as np

FORMAT_VERSION = "0.1.0"


def write_user_rom(path, K, M, D=None, contact_dims=(), loads=None, outputs=None, shapes=None, massless=False, units="",
                   frequencies_hz=None, contact_kinds=None):
    K = np.asarray(K, dtype=float)
    M = np.asarray(M, dtype=float)
    n = K.shape[0]
    D = np.zeros((n, n)) if D is None else np.asarray(D, dtype=float)
    nb = int(sum(contact_dims))
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "vicms-rom"
        f.attrs["version"] = FORMAT_VERSION
        f.attrs["method"] = "user_massless" if massless else "user"
        f.attrs["massless"] = 1 if massless else 0
        f.attrs["n_boundary"] = nb
        f.attrs["n_modes"] = n - nb
        f.attrs["units"] = units
        f["K"] = K
        f["M"] = M
        f["D"] = D
        if frequencies_hz is not None:
            f["frequencies_hz"] = np.asarray(frequencies_hz, dtype=float)
        g = f.create_group("contact")
        if len(contact_dims):
            g["dims"] = np.asarray(contact_dims, dtype=np.int64)
        if contact_kinds is not None and any(k not in ("unilateral", 0) for k in contact_kinds):
            codes = {"unilateral": 0, "bilateral": 1}
            g["kinds"] = np.asarray([codes.get(k, k) for k in contact_kinds], dtype=np.int64)
        for group, vecs in (("loads", loads), ("outputs", outputs), ("shapes", shapes)):
            gg = f.create_group(group)
            for name, v in (vecs or {}).items():
                gg[name] = np.asarray(v, dtype=float)


def springs(n, connections):
    """The stiffness matrix (n x n) of springs: connections holds (i, j, k), a spring k between coordinates i and j, or
    (i, None, k) from coordinate i to the ground."""
    K = np.zeros((n, n))
    for i, j, k in connections:
        K[i, i] += k
        if j is not None:
            K[j, j] += k
            K[i, j] -= k
            K[j, i] -= k
    return K


def ball(path, m=1.0, g=10.0):
    """Seed 002 §10.1: q is the height change of the ball's centre; gap = q + (initial gap), -contact_gap 0.801."""
    write_user_rom(path, K=[[0.0]], M=[[m]], contact_dims=[1], loads={"gravity": [-m * g]}, outputs={"y": [1.0]},
                   shapes={"translation_x": [1.0]}, units="SI")


def stop(path, zeta=0.02, state_outputs=False):
    """The stop oscillator of tests/app/hb.sh and docs/hb.md (massless contact coordinate first, then the mass);
    state_outputs: also the outputs q00, q01 (every coordinate: the state of each branch point, for floquet_exact.py)."""
    k1 = 4 * np.pi ** 2
    k2 = 3 * k1
    outputs = {"mass": [0.0, 1.0]}
    if state_outputs:
        outputs.update({"q00": [1.0, 0.0], "q01": [0.0, 1.0]})
    write_user_rom(path, K=[[k2, -k2], [-k2, k1 + k2]], M=[[0.0, 0.0], [0.0, 1.0]],
                   D=[[0.0, 0.0], [0.0, 2 * zeta * 2 * np.pi]], contact_dims=[1], loads={"drive": [0.0, 1.0]},
                   outputs=outputs, massless=True, units="SI", frequencies_hz=[2.0])


def bar(path, E=900.0, rho=1.0, L=10.0, cells=200, area=1.0):
    """Seed 002 §10.3: a free bar along the contact normal, node 0 touches the wall (lumped mass)."""
    n = cells + 1
    h = L / cells
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    k = E * area / h
    for e in range(cells):
        K[e:e + 2, e:e + 2] += k * np.array([[1, -1], [-1, 1]])
        M[e, e] += rho * area * h / 2
        M[e + 1, e + 1] += rho * area * h / 2
    mass = np.diag(M)
    write_user_rom(path, K=K, M=M, contact_dims=[1],
                   outputs={"contact_end": np.eye(n)[0], "far_end": np.eye(n)[-1], "centre_of_mass": mass / mass.sum()},
                   shapes={"translation_x": np.ones(n)}, units="SI")


if __name__ == "__main__":
    examples = {"ball": ball, "bar": bar, "stop": stop}
    if len(sys.argv) != 3 or sys.argv[1] not in examples:
        sys.exit("usage: write_user_rom.py ball|bar|stop FILE.h5")
    examples[sys.argv[1]](sys.argv[2])
