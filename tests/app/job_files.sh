#!/usr/bin/env bash
# Job files and commands as users mistype them (issue 24 items 11, 13, 24): -options_file on a FIFO, a device, a
# directory, a shell pipe, a missing file or no file at all refused in one line on 1 and 3 ranks without a hang (a FIFO
# and /dev/zero hung, a directory and <(cat job.yaml) ended in a traceback); a UTF-8 byte-order mark, NUL bytes, a nested
# options_file, YAML under another suffix named with file:line; -case_loads naming a load twice; a mistyped command with
# its nearest name; -help without PETSc's noise, with lists and load options; a signal outside the case loop: one line and exit 75 on every rank (was a silent 143).
source "$(dirname "$0")/lib.sh"
vicms_workdir


cat >job.yaml <<'EOF2'
mesh_line_cells: 20
mesh_line_length: 10
model_young: 900
model_density: 1
cms_type: cb_massless
cms_num_modes: 4
cms_contact_nodes: 1
cms_gravity: -10,0,0
cms_outputs: 1:x,21:x
rom_file: rom.h5
case_loads: gravity
contact_gap: 5
step_type: leapfrog
step_dt: 1e-3
step_end_time: 0.2
results_file: results.h5
cases_quiet: true
EOF2
mkfifo fifo
mkdir folder
printf '\xef\xbb\xbf' >bom.yaml && cat job.yaml >>bom.yaml
{ head -3 job.yaml; printf 'step_dt: 1e-3\0\n'; } >nul.yaml
{ cat job.yaml; echo "options_file: other.yaml"; } >nested.yaml
cp job.yaml job.txt

# what hung or crashed on several ranks: on 1 and 3; the rest on 2
for np in 1 3; do
  refused $np "-options_file: fifo is a pipe or FIFO" simulate -options_file fifo
  refused $np "-options_file: /dev/zero is a character device" simulate -options_file /dev/zero
  refused $np "-options_file: folder is a directory" reduce -options_file folder
done
for np in 2; do
  refused $np "-options_file: cannot open nosuch.yaml: No such file or directory" simulate -options_file nosuch.yaml
  refused $np "-options_file: no file given" simulate -options_file
  refused $np "bom.yaml:1: the file starts with a UTF-8 byte-order mark" simulate -options_file bom.yaml
  refused $np "nul.yaml:4: a NUL byte" simulate -options_file nul.yaml
  refused $np "nested.yaml:18: 'options_file: other.yaml': a job file cannot name another" simulate -options_file nested.yaml
  refused $np "job.txt:1: 'mesh_line_cells:' is a YAML 'key: value' line" simulate -options_file job.txt
  refused $np "unknown command 'simulat' (did you mean simulate?)" simulat -options_file job.yaml
  refused $np "unknown command 'redcue' (did you mean reduce?)" redcue -options_file job.yaml
done
# the shell's <(...) is a pipe that reaches one process only
out=$(timeout 60 mpirun -q --oversubscribe -n 2 "$VICMS_BIN" simulate -options_file <(cat job.yaml) 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "write the job to a file" <<<"$out" && [ "$(grep -c . <<<"$out")" -eq 1 ]; then
  echo "ok   <(cat job.yaml): $out"
else
  echo "FAIL <(cat job.yaml): exit $rc: $out"; fail=1
fi

must "reduce" mpi 120 1 reduce -options_file job.yaml || exit 1
for np in 1 2; do
  refused $np "-case_loads: 'gravity' is named twice (entries 1 and 2)" simulate -options_file job.yaml -case_loads gravity,gravity
done
# the load once: the run the duplicate would have doubled
must "simulate" mpi 60 1 simulate -options_file job.yaml && echo "ok   -case_loads gravity runs"

# a load above the step's Nyquist frequency (dt = 1e-3: 500 Hz) is refused naming its option; in a grid only that case
# fails; an energy that overflows from a finite state fails its case; a job whose every case failed exits non-zero
for np in 2; do
  refuse "noise band above Nyquist" "$np" "-load_gravity_noise_band: 100.,900. Hz reaches above the Nyquist frequency 1/(2 dt) = 500. Hz" \
    simulate -options_file job.yaml -load_gravity_type noise -load_gravity_noise_band 100,900 -results_file bad.r.h5
done
refuse "sweep above Nyquist" 2 "the sweep reaches 300. Hz by t = 0.2 s" simulate -options_file job.yaml -step_dt 2e-3 \
  -load_gravity_type sweep_linear -load_gravity_frequency 100 -load_gravity_sweep_rate 1000 -results_file bad.r.h5
must "a grid over the load frequency through Nyquist" mpi 60 2 simulate -options_file job.yaml -load_gravity_type harmonic \
  -cases_grid load_gravity_frequency:100:600:3 -results_file grid.h5
expect "grid through Nyquist: cases done, failed" "$(grep -o '3 cases: 2 done, 1 failed' <<<"$LAST")" "3 cases: 2 done, 1 failed"
expect "grid through Nyquist: case 2's reason" "$(grep -c 'case 2: -load_gravity_frequency: 600. Hz reaches the Nyquist frequency' <<<"$LAST")" 1
for np in 2; do
  refuse "an overflowing energy, every case failed" "$np" "every case failed (1 of 1" simulate -options_file job.yaml -init velocity \
    -init_velocity 1e200 -results_file bad.r.h5
done
out=$(mpi 60 1 simulate -options_file job.yaml -init velocity -init_velocity 1e200 -results_file inf.h5 2>&1)
expect "an overflowing energy: the case's reason" "$(grep -c 'case 0: non-finite energy at t = 0. (kinetic inf.' <<<"$out")" 1

refuse "a friction coefficient of 1e308" 2 "-contact_mu: got 1e+308, expected 0 <= mu <= 1e6" simulate -options_file job.yaml -contact_mu 1e308 \
  -results_file bad.r.h5

# -help as a user reads it (item 24): no PETSc "<now A : formerly B>" or "<A : B>", a list shown as a list and not as its
# first entry, a load's options visible before a job names a load, a type option under its section heading, and a value
# a job changed shown with its default
help=$("$VICMS_BIN" simulate -help 2>&1)
expect "-help: lines with PETSc's 'formerly' or '<A : B>'" "$(grep -Ec 'formerly|<[^>]* : [^>]*>' <<<"$help")" 0
expect "-help: -contact_rotation_axis" "$(grep -o -- '-contact_rotation_axis <[^>]*>' <<<"$help")" "-contact_rotation_axis <v1,v2,...>"
expect "-help: -contact_mu" "$(grep -o -- '-contact_mu <[^>]*>' <<<"$help")" "-contact_mu <0>"
expect "-help without a job: a load's amplitude" "$(grep -o -- '-load_NAME_amplitude <[^>]*>' <<<"$help")" "-load_NAME_amplitude <1>"
expect "-help: the line after 'Contact case:'" "$(grep -A1 '^Contact case:' <<<"$help" | tail -1 | grep -o -- '-system_type <[^>]*>')" "-system_type <reduced>"
expect "-help: the line after 'Time integration:'" "$(grep -A1 '^Time integration:' <<<"$help" | tail -1 | grep -o -- '-step_type <[^>]*>')" "-step_type <leapfrog>"
expect "-help: -step_type's choices" "$(grep -c -- '-step_type <leapfrog>: .*(choose one of) leapfrog moreau nsgalpha mixed dual$' <<<"$help")" 1
expect "-help: empty manual references '()' left" "$(grep -c ' ()$' <<<"$help")" 0
help=$("$VICMS_BIN" simulate -options_file job.yaml -help 2>&1)
expect "-help with the job: -step_end_time" "$(grep -o -- '-step_end_time <[^>]*>' <<<"$help")" "-step_end_time <0.2, default 1>"
expect "-help with the job: its load's amplitude" "$(grep -o -- '-load_gravity_amplitude <[^>]*>' <<<"$help")" "-load_gravity_amplitude <1>"

# SIGTERM while the parent is assembled or reduced: one line, exit 75 on every rank, no ROM file
vicms_rank_wrapper
for np in 1 2; do
  rm -f rc.* big.h5
  timeout 120 mpirun --oversubscribe -n $np bash rank.sh reduce -mesh_box_cells 30,30,30 -mesh_box_lengths 1,1,1 \
    -model_young 1 -model_density 1 -model_poisson 0.3 -model_clamp xmin -cms_type cb -cms_contact_nodes 29791 \
    -cms_num_modes 10 -rom_file big.h5 >stop.log 2>&1 &
  pid=$!
  if ! wait_for 60 grep -q "^Model:" stop.log; then echo "FAIL np=$np: the reduction did not start"; fail=1; fi
  sleep 0.5
  pkill -TERM -f "vicms reduce -mesh_box_cells 30,30,30"
  wait $pid
  expect "np=$np SIGTERM in reduce: exit status of every rank" "$(cat rc.* 2>/dev/null | sort | uniq -c | xargs)" "$np 75"
  expect "np=$np SIGTERM in reduce: lines saying so" "$(grep -c 'stopped by SIGTERM outside a part that can stop' stop.log)" 1
  expect "np=$np SIGTERM in reduce: no ROM file" "$(ls big.h5 2>/dev/null | wc -l)" 0
done
exit $fail
