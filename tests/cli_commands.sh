#!/usr/bin/env bash
# Integration: every program and subcommand meets a newcomer the same way — --help on stdout
# (rc 0) naming the command and its options, --version, an unknown option named as unknown
# (with the nearest known one), a missing value named, a flag given a value refused, nothing
# on stdout when refused, and a whole-file error without a made-up position.
set -u
B=$1; S=$2
. "$S/tests/lib.sh"
for bin in hasim hareal hkplot hkbench; do
  [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }
done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
V=$(sed -n 's/^project(hakarma VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
[ -n "$V" ] || { echo "FAIL: no project version in CMakeLists.txt"; exit 1; }

# command, then an option of its own that takes a value, then a flag of its own
while read -r prog sub valued flag; do
  [ "$sub" = - ] && sub=
  name="$prog${sub:+ $sub}"
  run() { "$B/$prog" ${sub:+$sub} "$@"; }
  run --help > "$T/help" 2> "$T/help.err"; rc=$?
  check "$name --help: rc 0, usage and options on stdout, nothing on stderr" \
    '[ $rc -eq 0 ] && head -1 "$T/help" | grep -q "^usage: $name " && grep -q "^  -h, --help" "$T/help" && grep -q "^exit codes: 0 ok" "$T/help" && [ ! -s "$T/help.err" ]'
  check "$name --help lists its own --$valued and --$flag" \
    'grep -qE "^  -?-$valued " "$T/help" && grep -qE "^  --$flag( |$)" "$T/help"'
  run -h > "$T/h2"; rc=$?
  check "$name -h is --help" '[ $rc -eq 0 ] && cmp -s "$T/help" "$T/h2"'
  run --version > "$T/ver"; rc=$?
  check "$name --version: '$name (hakarma) $V'" '[ $rc -eq 0 ] && [ "$(cat "$T/ver")" = "$name (hakarma) $V" ]'
  run --no-such-option > "$T/o" 2> "$T/e"; rc=$?
  check "$name --no-such-option: rc 2, named as unknown, where help is, no stdout" \
    '[ $rc -eq 2 ] && grep -q "^$name: unknown option .--no-such-option." "$T/e" && grep -q "^$name: see $name --help" "$T/e" && [ ! -s "$T/o" ]'
  run --${flag}x > /dev/null 2> "$T/e"; rc=$?
  check "$name --${flag}x: unknown, the nearest named (--$flag)" \
    '[ $rc -eq 2 ] && grep -q "unknown option .--${flag}x. (did you mean .--$flag.?)" "$T/e"'
  if [ ${#valued} -gt 1 ]; then opt="--$valued"; else opt="-$valued"; fi
  run "$opt" > /dev/null 2> "$T/e"; rc=$?
  check "$name $opt without its value: rc 2, 'needs a value'" \
    '[ $rc -eq 2 ] && grep -q "^$name: $opt needs a value" "$T/e"'
  run "--$flag=1" > /dev/null 2> "$T/e"; rc=$?
  check "$name --$flag=1: a flag takes no value" '[ $rc -eq 2 ] && grep -q "^$name: --$flag takes no value" "$T/e"'
done <<'LIST'
hasim - seed quiet
hasim init out no-exec
hasim sweep grid resume
hasim merge out force
hareal mirror listen control
hareal replay trace plot
hareal live duration compare-sim
hkplot - lines quiet
hkbench - only quick
LIST

"$B/hareal" --help > "$T/o"; rc=$?
check "hareal --help lists its commands" '[ $rc -eq 0 ] && grep -q "hareal mirror" "$T/o" && grep -q "hareal replay" "$T/o" && grep -q "hareal live" "$T/o"'
"$B/hareal" bogus > "$T/o" 2> "$T/e"; rc=$?
check "hareal bogus: an unknown command, rc 2" '[ $rc -eq 2 ] && grep -q "unknown command .bogus." "$T/e" && [ ! -s "$T/o" ]'
"$B/hasim" merge --help > "$T/o"
check "hasim merge --help is merge's, not the sweep's" 'head -1 "$T/o" | grep -q "^usage: hasim merge DIR" && ! grep -q -- "--grid" "$T/o"'
"$B/hasim" "$S/scenarios/textbook.scn" "$S/scenarios/mmc.scn" > /dev/null 2> "$T/e"; rc=$?
check "two scenarios: rc 2, the second named" '[ $rc -eq 2 ] && grep -q "mmc.scn" "$T/e"'
"$B/hasim" --strategy rnadom "$S/scenarios/textbook.scn" > /dev/null 2> "$T/e"; rc=$?
check "a misspelt strategy: rc 2, the nearest name" "[ \$rc -eq 2 ] && grep -q \"did you mean 'random'\" \"\$T/e\""
"$B/hasim" "$T/nosuch.scn" > /dev/null 2> "$T/e"; rc=$?
check "a missing scenario: rc 3, the file named, no byte offset" '[ $rc -eq 3 ] && grep -q "nosuch.scn: cannot open" "$T/e" && ! grep -q "byte 0" "$T/e"'
"$B/hareal" replay --config "$T/nosuch.conf" --trace "$T/t.csv" > /dev/null 2> "$T/e"; rc=$?
check "replay of a missing config: rc 3, named, no byte offset" '[ $rc -eq 3 ] && grep -q "nosuch.conf: cannot open" "$T/e" && ! grep -q "byte 0" "$T/e"'
echo "cli_commands: $pass passed, $fail failed"
[ $fail -eq 0 ]
