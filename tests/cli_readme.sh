#!/usr/bin/env bash
# cli_readme: the README's question table run verbatim and in order, as a new user runs it from
# the source folder (here a fresh folder that sees the build and the bundled scenarios): each
# row's commands exit 0 and print what they found. A row that needs the operator's own machines
# (their agents, their master, their logs) is named and not run; the live rows (30 s of real
# time each) are not run under the sanitizers. The table broke once at row 7: the live rows
# share a default folder, which the README says the next run replaces.
set -u
B=$1; S=$2
. "$S/tests/lib.sh"
[ -x "$B/hasim" ] && [ -x "$B/hareal" ] || { echo "FAIL: hasim or hareal is missing in $B"; exit 1; }
needs cli_readme searchd python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir "$T/src" && ln -s "$B" "$T/src/build" && ln -s "$S/scenarios" "$T/src/scenarios"
# the table's commands, a line each ("ROW<TAB>COMMAND"): the code spans of its second column
python3 - "$S/README.md" > "$T/commands" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
table = text.split("The questions operators bring", 1)[1].split("\n\n", 2)[1]
rows = [l for l in table.splitlines() if l.startswith("| ") and not l.startswith("| question")]
for i, row in enumerate(rows, 1):
    cell = row.rsplit(" | ", 1)[1]
    for cmd in re.findall(r"`([^`]+)`", cell):
        if cmd.startswith("build/") or cmd.startswith("curl "):
            print(f"{i}\t{cmd}")
PY
# what needs the operator's own: an agent at 10.0.0.7, their config and log, their master on
# 9306, their agent behind the proxy (and the curl that breaks it)
theirs='10\.0\.0\.7|--config manticore\.conf|127\.0\.0\.1:9306|--upstream|^curl '
ran=0; skipped=0
while IFS=$'\t' read -r row cmd; do
  if grep -Eq -- "$theirs" <<< "$cmd"; then
    echo "cli_readme: row $row needs the operator's own machines, not run: $cmd"; skipped=$((skipped+1)); continue
  fi
  if [ -n "${HK_SANITIZED:-}" ] && grep -q "hareal live" <<< "$cmd"; then
    echo "cli_readme: row $row runs 30 s of real time, not under the sanitizers"; skipped=$((skipped+1)); continue
  fi
  (cd "$T/src" && timeout 300 bash -c "$cmd") > "$T/out" 2> "$T/err"; rc=$?
  ran=$((ran+1))
  check "row $row, verbatim, exits 0 and says what it found: $cmd (rc $rc: $(tail -1 "$T/err"))" \
        '[ $rc -eq 0 ] && [ -s "$T/out" ]'
done < "$T/commands"
check "the table's commands were found and run ($ran run, $skipped not)" '[ $ran -ge 6 ] && [ $((ran + skipped)) -ge 13 ]'
echo "cli_readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
