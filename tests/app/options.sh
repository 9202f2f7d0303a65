#!/usr/bin/env bash
# Options through the executable (issue 10): typos refused with the nearest name before any work, a job file serving
# reduce and simulate alike, non-finite values refused naming the option, bad enums and numbers in one line on 1 and 3
# ranks, YAML errors and duplicate keys with file:line, -help showing vicms's options, a non-finite state failing its case.
source "$(dirname "$0")/lib.sh"
vicms_workdir


# one job file for both commands: -cms_* and -mesh_* are reduce's, -step_* and -contact_* simulate's
cat >job.yaml <<'EOF'
# the bouncing bar of jobs/bar_bounce.yaml, coarse and short
mesh_line_cells: 50
mesh_line_length: 10
model_young: 900
model_density: 1
cms_type: cb_massless
cms_num_modes: 5
cms_contact_nodes: 1
cms_gravity: -10,0,0
cms_outputs: 1:x,51:x
rom_file: rom.h5
case_loads: gravity
contact_gap: 5
step_type: leapfrog
step_dt: 1e-3
step_end_time: 0.5
results_file: results.h5
cases_quiet: true
EOF
must "reduce with the job file" mpi 120 2 reduce -options_file job.yaml && echo "ok   reduce accepts the job file (its -step_* options)"
must "simulate with the job file" mpi 120 2 simulate -options_file job.yaml && echo "ok   simulate accepts the job file (its -cms_* options)"
[ -f rom.h5 ] && [ -f results.h5 ] || { echo "FAIL: no rom.h5 or results.h5"; fail=1; }

# concurrently NAME NP...: the function NAME for each rank count at once (each vicms start waits mostly on MPI's start-up,
# not on the cores), each into its own log; then the logs in order, and any FAIL line fails the test
concurrently() {
  local fn=$1 np
  shift
  for np in "$@"; do "$fn" "$np" >"$fn.$np.log" 2>&1 & done
  wait
  for np in "$@"; do cat "$fn.$np.log"; done
  ! grep -q '^FAIL' "$fn".*.log || fail=1
}

# on 1 rank and on 3 (more ranks than cores): every rank must agree to refuse, none may hang
refusals() {
  local np=$1
  # typos, with the nearest valid name; reduce stops before it reads the mesh, run before it reduces
  refused $np "unknown option -step_dtt (did you mean -step_dt?)" simulate -options_file job.yaml -step_dtt 1e-3
  refused $np "unknown option -cms_num_mode (did you mean -cms_num_modes?)" reduce -options_file job.yaml -cms_num_mode 5
  refused $np "-cases_grid: unknown case parameter 'contact_gapp' (did you mean contact_gap?)" run -options_file job.yaml -cases_grid contact_gapp:1:2:3
  refused $np "-cases_random: unknown case parameter 'contact_mux' (did you mean contact_mu?)" simulate -options_file job.yaml -cases_random contact_mux:uniform:0:1
  refused $np "unknown option -load_gravity_amplitud (did you mean -load_gravity_amplitude?)" simulate -options_file job.yaml -load_gravity_amplitud 2
  refused $np "unknown option -log_veiw (did you mean -log_view?)" simulate -options_file job.yaml -log_veiw
  # non-finite values, the step count
  refused $np "-step_dt: 'inf' is not a finite number" simulate -options_file job.yaml -step_dt inf
  refused $np "-contact_gap: 'nan' is not a finite number" simulate -options_file job.yaml -contact_gap nan
  refused $np "-init_velocity: 'nan' is not a finite number" simulate -options_file job.yaml -init velocity -init_velocity nan
  refused $np "-load_gravity_amplitude: 'nan' is not a finite number" simulate -options_file job.yaml -load_gravity_amplitude nan
  refused $np "-cms_gravity: entry 2 of '0,nan,0' is not a finite number" reduce -options_file job.yaml -cms_gravity 0,nan,0
  refused $np "-step_dt: got 1., longer than the time span 0.1 of the run" simulate -options_file job.yaml -step_dt 1 -step_end_time 0.1
  refused $np "-case_damping_scale: got -1., expected a scale s >= 0 of the ROM's damping matrix" simulate -options_file job.yaml -case_damping_scale -1
  refused $np "-step_dt: got 1e-20, which makes 5e+19 steps from 0. to 0.5; expected at most" simulate -options_file job.yaml -step_dt 1e-20
  # bad enum values and numbers: one line, not a traceback per rank
  refused $np "-step_type: 'leapfrogg' is not one of leapfrog, moreau" simulate -options_file job.yaml -step_type leapfrogg
  refused $np "-cms_type: 'craig' is not one of cb, cb_massless, macneal, rubin" reduce -options_file job.yaml -cms_type craig
  refused $np "-step_dt: 'abc' is not a number" simulate -options_file job.yaml -step_dt abc
  refused $np "-cms_num_modes: '5.5' is not an integer" reduce -options_file job.yaml -cms_num_modes 5.5
  refused $np "-cases_quiet: 'maybe' is not true or false" simulate -options_file job.yaml -cases_quiet maybe
}
concurrently refusals 1 3

# YAML: errors and duplicate keys with file:line (the duplicate with both lines)
printf 'step_dt: 1e-3\n# a comment\nstep_end_time: 0.5\nstep_dt: 2e-3\n' >dup.yaml
printf 'step_dt: 1e-3\n  step_end_time: 0.5\n' >indent.yaml
printf 'step_dt: 1e-3\nstep_end_time 0.5\n' >nocolon.yaml
yaml() {
  refused $1 "dup.yaml:4: duplicate key 'step_dt' (first at dup.yaml:1)" simulate -options_file dup.yaml
  refused $1 "indent.yaml:2: indented line" simulate -options_file indent.yaml
  refused $1 "nocolon.yaml:2: 'step_end_time 0.5' is not 'key: value'" simulate -options_file nocolon.yaml
}
concurrently yaml 1 3

# -help: vicms's options first and only; -help all keeps PETSc's
help=$("$VICMS_BIN" simulate -help 2>&1)
head30=$(head -30 <<<"$help")
if grep -q -- "-rom_file" <<<"$head30" && grep -q -- "-results_file" <<<"$head30" && grep -q -- "-cases_grid" <<<"$head30" &&
  grep -q -- "-step_dt" <<<"$help" && ! grep -Eq -- "-log_view|-malloc|PETSc Release" <<<"$help"; then
  echo "ok   vicms simulate -help: $(wc -l <<<"$help") lines of vicms options, none of PETSc's"
else
  echo "FAIL vicms simulate -help:"; echo "$head30"; fail=1
fi
# a reader that stops early (| head) ends the help quietly, as for any Unix filter: SIGPIPE's own status (141) or 0, nothing
# on stderr (it was PETSc's "Caught signal number 13 Broken Pipe" traceback and exit 59); -help all prints during PETSc's
# initialization, -help after it
for what in "simulate -help" "reduce -help all" "hb -help"; do
  rm -f pipe.err
  "$VICMS_BIN" $what 2>pipe.err | head -c 100 >/dev/null
  rc=${PIPESTATUS[0]}
  if { [ $rc -eq 141 ] || [ $rc -eq 0 ]; } && [ ! -s pipe.err ]; then
    echo "ok   vicms $what | head: exit $rc, nothing on stderr"
  else
    echo "FAIL vicms $what | head: exit $rc (expected 141 or 0), stderr: $(head -3 pipe.err)"; fail=1
  fi
done
helpall=$("$VICMS_BIN" reduce -help all 2>&1)
if grep -q -- "-log_view" <<<"$helpall" && grep -q -- "-malloc_debug" <<<"$helpall" && grep -q -- "-cms_num_modes" <<<"$helpall"; then
  echo "ok   vicms reduce -help all: PETSc's and vicms's options"
else
  echo "FAIL vicms reduce -help all:"; echo "$helpall" | head; fail=1
fi

# a state that overflows (an unstable step, the blow-up bound lifted to infinity) fails its case, named non-finite
out=$(mpi 120 1 simulate -options_file job.yaml -step_dt 0.5 -step_end_time 1000 -step_blowup_factor 1e308 -results_file nan.h5 2>&1)
# (or its energy first: |q| ~ 1e160 squares to inf while q is still finite)
if grep -Eq "case 0: non-finite (state at t = [0-9.e+]+: [qv]\[[0-9]+\] = (inf|-inf|nan)|energy at t = [0-9.e+]+ \(kinetic)" <<<"$out" && grep -q "0 done, 1 failed" <<<"$out"; then
  echo "ok   $(grep -m1 'case 0: non-finite' <<<"$out")"
else
  echo "FAIL non-finite state:"; echo "$out" | tail -5; fail=1
fi

[ $fail -eq 0 ] && echo "all option checks passed"
exit $fail
