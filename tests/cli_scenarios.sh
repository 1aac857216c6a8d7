#!/usr/bin/env bash
# Every shipped scenario states what it shows as expect { } claims; each must hold. A scenario
# without claims, a claim that no longer holds, or a missing hasim fails this test.
set -u
B=$1; S=$2
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0; n=0
for f in "$S"/scenarios/*.scn; do
  n=$((n+1))
  name=$(basename "$f" .scn)
  if "$B/hasim" "$f" --check --out "$T/$name" > "$T/$name.out" 2>&1; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL: $name"; grep -A1 "FAILS\|hasim:" "$T/$name.out"
  fi
done
[ "$n" -ge 10 ] || { echo "FAIL: only $n scenarios found in $S/scenarios"; fail=$((fail+1)); }
echo "cli_scenarios: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
