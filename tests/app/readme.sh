#!/usr/bin/env bash
# The README runs as shown (issue 24, item 22): every command of its ```sh code blocks, except the two set-up commands
# (bash scripts/example.sh, bash scripts/test.sh), runs in order in one bash session, in a scratch copy of the repository
# (README.md, examples/, jobs/, meshes/, scripts/, python/, and build/ as a link to the build folder of the vicms under test), with
# HOME in the scratch folder (so `cmake --install build --prefix ~/.local` installs there) and stops the test at the
# first command that fails. Without gmsh, the commands of the section that runs gmsh are skipped with a message. Also:
# the installed tree holds bin/vicms, the library, the headers and the scripts; the README stays a quickstart (at most
# 2,200 words); every relative link of README.md and docs/*.md points to a file that exists.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
vicms_workdir
vicms_need_h5py

build=$(dirname "$VICMS_BIN")
mkdir repo home
cp -r "$VICMS_SOURCE/README.md" "$VICMS_SOURCE/examples" "$VICMS_SOURCE/jobs" "$VICMS_SOURCE/meshes" "$VICMS_SOURCE/scripts" "$VICMS_SOURCE/python" repo/
ln -s "$build" repo/build
export HOME=$dir/home
have_gmsh=1
command -v gmsh >/dev/null || have_gmsh=0

# the commands, block after block; a section (## heading) whose blocks run gmsh is left out when gmsh is absent
$py - "$have_gmsh" "$VICMS_SOURCE/README.md" >commands.sh <<'EOF2' || exit 1
import re
import sys

have_gmsh, path = sys.argv[1] == "1", sys.argv[2]
sections, title, block = [], "", None
for line in open(path, encoding="utf-8"):
    line = line.rstrip("\n")
    if block is None:
        if line.startswith("## "):
            title = line[3:]
        elif line.strip() == "```sh":
            block = []
    elif line.strip() == "```":
        sections.append((title, block))
        block = None
    else:
        block.append(line)
setup = re.compile(r"^bash scripts/(example|test)\.sh\b")
skip = {t for t, b in sections if not have_gmsh and any(re.match(r"^gmsh\b", l) for l in b)}
n = 0
for t, b in sections:
    lines = [l for l in b if not setup.match(l)]
    if not lines:
        continue
    if t in skip:
        print("echo 'skipped (gmsh is not installed): %d command lines of section \"%s\"'" % (len(lines), t))
        continue
    print("\n".join(lines))
    n += sum(1 for l in lines if l.strip() and not l.lstrip().startswith("#"))
print("README: %d command lines to run" % n, file=sys.stderr)
if n < 5:
    sys.exit("README: only %d command lines found in its sh blocks" % n)
EOF2
echo "---- the README's commands:"
cat commands.sh
echo "----"
cd repo || exit 1
if ! timeout 300 bash -e -o pipefail -x ../commands.sh >../run.log 2>&1; then
  echo "FAIL a README command failed (the last + line is the command):"
  tail -25 ../run.log
  fail=1
else
  echo "ok   every README command ran ($(grep -c '^+ ' ../run.log) commands, bash -x)"
  grep "skipped (gmsh" ../run.log | grep -v "^+" | sed 's/^/note /'
fi
cd "$dir" || exit 1

# the install tree of `cmake --install build --prefix ~/.local`
for f in bin/vicms lib/libvicms.a include/vicms.h include/vicms/step.h share/vicms/scripts/plot_results.py share/vicms/python/vicms/plot.py; do
  if [ -e "home/.local/$f" ]; then echo "ok   installed $f"; else echo "FAIL not installed: $f"; fail=1; fi
done
if [ $have_gmsh = 1 ]; then
  for f in beam.msh beam_modes.h5 beam_rom.h5 beam_sweep.h5 beam_hb.h5 plots/beam_hb_hb.png; do
    if [ -s "repo/$f" ]; then echo "ok   the walkthrough wrote $f"; else echo "FAIL the walkthrough did not write $f"; fail=1; fi
  done
fi

words=$(wc -w <"$VICMS_SOURCE/README.md")
if [ "$words" -le 2200 ]; then echo "ok   README.md: $words words (at most 2200)"; else echo "FAIL README.md: $words words, more than 2200"; fail=1; fi

# relative links [text](path) and ![alt](path) of README.md and docs/*.md
$py - "$VICMS_SOURCE" <<'EOF2' || fail=1
import glob
import os
import re
import sys

root = sys.argv[1]
bad = 0
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
for f in files:
    text = open(f, encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        p = os.path.normpath(os.path.join(os.path.dirname(f), target.split("#")[0]))
        if not os.path.exists(p):
            print("FAIL %s: link to %s, which does not exist" % (os.path.relpath(f, root), target))
            bad = 1
print(("ok   " if not bad else "FAIL ") + "relative links of README.md and docs/*.md (%d files)" % len(files))
sys.exit(bad)
EOF2
exit $fail
