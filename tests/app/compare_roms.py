"""compare_roms.py A.h5 B.h5 ROM: the frequencies_hz of two vicms results (modes or ROM files) within 1e-8 relative (modes
below 1 Hz, the rigid-body ones, only below 1e-2 Hz in both); with ROM=1 also the lowest 15 finite eigenvalues of the ROMs'
(K, M). Prints 'ok ...' or 'BAD ...' with the largest differences (tests/app/scale.sh, pmg.sh)."""
import sys

import h5py
import numpy as np
import scipy.linalg as sl

a, b, rom = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r'), sys.argv[3] == '1'
fa, fb = np.array(a['frequencies_hz']), np.array(b['frequencies_hz'])
assert fa.shape == fb.shape, (fa.shape, fb.shape)
rigid = fa < 1.0
assert np.all(fb[rigid] < 1e-2) and np.all(fa[rigid] < 1e-2), (fa[rigid], fb[rigid])
err = np.max(np.abs(fa[~rigid] - fb[~rigid]) / fa[~rigid])
msg = 'frequencies %d (%d rigid), first elastic %.10g Hz, max rel. diff %.2e' % (len(fa), rigid.sum(), fa[~rigid][0], err)
ok = err < 1e-8
if rom:
    def spectrum(f):
        K, M = np.array(f['K']), np.array(f['M'])
        w = sl.eigvals(K, M)
        w = np.sort(np.real(w[np.isfinite(w)]))
        return w[w > 0][:15]
    sa, sb = spectrum(a), spectrum(b)
    rerr = np.max(np.abs(sa - sb) / sa)
    msg += '; ROM spectrum %d values from %.10g, max rel. diff %.2e' % (len(sa), np.sqrt(sa[0]) / (2 * np.pi), rerr)
    ok = ok and rerr < 1e-8
print(('ok ' if ok else 'BAD ') + msg)
