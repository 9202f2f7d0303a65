#!/usr/bin/env bash
# `vicms info` on a modes file (a fixed-free rod: first frequency (2n-1)c/(4l) = 0.75 Hz with c = 30, l = 10), the XDMF file written
# beside it, and a missing file (non-zero exit, a message naming it, no hang). The ROM side of `vicms info` is covered by test_rom.
set -u
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
mpi() { timeout 120 mpirun --oversubscribe -n 2 "$VICMS_BIN" "$@"; }

out=$(mpi modes -mesh_line_cells 50 -mesh_line_length 10 -model_young 900 -model_density 1 -model_clamp start -modes_num 3 \
  -modes_file m.h5 2>&1)
if [ $? -ne 0 ] || [ ! -f m.h5 ]; then
  echo "FAIL vicms modes did not write m.h5:"; echo "$out"; exit 1
fi

# the mode shapes for ParaView: m.xmf beside m.h5, well-formed XML, one temporal grid per mode pointing at m.h5:/modes/N
if [ ! -f m.xmf ]; then
  echo "FAIL vicms modes did not write m.xmf beside m.h5"; fail=1
elif [ "$(grep -c 'm\.h5:/modes/[123]<' m.xmf)" -ne 3 ] || ! grep -q 'm\.h5:/mesh/coordinates' m.xmf; then
  echo "FAIL m.xmf does not reference m.h5:/modes/1..3 and m.h5:/mesh/coordinates:"; head -20 m.xmf; fail=1
elif command -v python3 >/dev/null && ! python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse("m.xmf").getroot(); sys.exit(0 if len(r.findall(".//Grid[@GridType=\"Uniform\"]")) == 3 else 1)'; then
  echo "FAIL m.xmf is not well-formed XDMF with 3 uniform grids"; fail=1
else
  echo "--- m.xmf: 3 mode grids referencing m.h5"
fi

for how in "m.h5" "-file m.h5"; do
  out=$(mpi info $how 2>&1)
  rc=$?
  echo "--- vicms info $how (exit $rc)"; echo "$out"
  if [ $rc -ne 0 ]; then
    echo "FAIL vicms info $how: exit status $rc"; fail=1
  fi
  # the first mode of the table: 1, then 0.750... Hz
  if ! grep -Eq '^ *1 +0\.750[0-9]*( |$)' <<<"$out"; then
    echo "FAIL vicms info $how: no first mode at 0.750 Hz"; fail=1
  fi
  if ! grep -q '3 natural modes of a mesh with 51 nodes and 50 elements' <<<"$out"; then
    echo "FAIL vicms info $how: the mesh size is not 51 nodes and 50 elements"; fail=1
  fi
  if [ "$(grep -c 'Modes file' <<<"$out")" -ne 1 ]; then
    echo "FAIL vicms info $how: the description is not printed exactly once on 2 ranks"; fail=1
  fi
done

for bad in missing.h5 "-file missing.h5"; do
  out=$(mpi info $bad 2>&1)
  rc=$?
  echo "--- vicms info $bad (exit $rc)"; echo "$out"
  if [ $rc -eq 0 ]; then
    echo "FAIL vicms info $bad: exit status 0"; fail=1
  elif [ $rc -eq 124 ]; then
    echo "FAIL vicms info $bad: hung (killed after 120 s)"; fail=1
  elif ! grep -Eq 'vicms: error: .*missing\.h5' <<<"$out"; then
    echo "FAIL vicms info $bad: the message does not name missing.h5"; fail=1
  fi
done

echo "this is not HDF5" >not_hdf5.h5
out=$(mpi info not_hdf5.h5 2>&1)
rc=$?
echo "--- vicms info not_hdf5.h5 (exit $rc)"; echo "$out"
if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -Eq 'vicms: error: .*not_hdf5\.h5' <<<"$out"; then
  echo "FAIL vicms info not_hdf5.h5: expected a clean error naming the file"; fail=1
fi

out=$(mpi info 2>&1)
rc=$?
echo "--- vicms info (no file; exit $rc)"; echo "$out"
if [ $rc -eq 0 ] || ! grep -q 'vicms: error: vicms info: which file' <<<"$out"; then
  echo "FAIL vicms info without a file: expected a clean error"; fail=1
fi

[ $fail -eq 0 ] && echo "vicms info: all checks passed"
exit $fail
