#!/usr/bin/env bash
# Integration: hasim sweep, the advisor. The same sweep in 1 process, in 3, and as two shards run
# by GNU parallel then merged gives byte-identical files; the recommendation names settings with
# confidence intervals and says how the current settings compare; a one-point grid is a plain
# run; grid errors name their column; shards of different sweeps, or a missing shard, are refused
# and leave no finished-looking files.
set -u
B=$1; S=$2
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
command -v parallel > /dev/null || { echo "FAIL: GNU parallel is missing (.ci/setup installs it)"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
H="$B/hasim"; SC="$S/scenarios/dies-recovers.scn"
G='ha_strategy=nodeads,noerrors ha_period_karma=10s,60s'

$H sweep "$SC" --grid "$G" -j 1 --out "$T/j1" > "$T/j1.out" 2>&1
check "sweep -j 1 exits 0" '[ $? -eq 0 ]'
$H sweep "$SC" --grid "$G" -j 3 --out "$T/j3" --quiet
check "sweep -j 3 exits 0" '[ $? -eq 0 ]'
parallel "$H" sweep "$SC" --grid "'$G'" --shard {}/2 --out "$T/shard{}" --quiet ::: 1 2
check "two shards through GNU parallel" '[ $? -eq 0 ] && [ -s "$T/shard1/runs/0.csv" ] && [ -s "$T/shard2/runs/1.csv" ] && [ ! -e "$T/shard1/sweep.csv" ]'
$H merge "$T/shard1" "$T/shard2" --out "$T/merged" --quiet
check "merge exits 0" '[ $? -eq 0 ]'
for f in sweep.csv report.txt index.html; do
  check "$f: -j 1, -j 3 and merged shards identical" 'cmp -s "$T/j1/$f" "$T/j3/$f" && cmp -s "$T/j1/$f" "$T/merged/$f"'
done
check "sweep.csv: 4 settings x 3 replications" '[ $(($(wc -l < "$T/j1/sweep.csv") - 1)) -eq 12 ]'
check "replication r uses seed + r at every point (common random numbers)" '[ "$(awk -F, "NR>1 {print \$2 \"-\" \$3}" "$T/j1/sweep.csv" | sort -u | tr "\n" " ")" = "0-1 1-2 2-3 " ]'
check "a recommendation with intervals in words" 'grep -Eq "^RECOMMENDATION: ha_strategy=nodeads ha_period_karma=[0-9]+s: p99 [0-9.]+ \+- [0-9.]+ ms, [0-9.]+ \+- [0-9.]+% failed, readmitted in [0-9.]+ \+- [0-9.]+ s" "$T/j1.out"'
check "the current settings compared" 'grep -q "your current settings (ha_strategy=nodeads ha_period_karma=60s)" "$T/j1.out"'
check "noerrors ranks below nodeads here (it re-admits box2 later)" '[ "$(awk "/^ +[0-9]+  ha_strategy/ {print \$2}" "$T/j1.out" | tr "\n" " ")" = "ha_strategy=nodeads ha_strategy=nodeads ha_strategy=noerrors ha_strategy=noerrors " ]'
check "index.html has a heatmap and the ranking" 'grep -q "<h3>p99 by ha_strategy x ha_period_karma</h3>" "$T/j1/index.html" && grep -q "RECOMMENDATION" "$T/j1/index.html"'

# a one-point grid is a plain run
$H sweep "$SC" --grid 'ha_strategy=noerrors ha_period_karma=10s' --duration 2m --out "$T/one" > "$T/one.out" 2>&1
check "one-point grid: a plain run's files and words" '[ -s "$T/one/summary.csv" ] && grep -q "^queries: " "$T/one.out" && grep -q "plain run" "$T/one.out"'

# errors
$H sweep "$SC" --grid 'ha_strategy=nodeads,noerors' --out "$T/e1" 2> "$T/e1.err"
check "bad value: exit 2 at its column" '[ $? -eq 2 ] && grep -q "column 21: ha_strategy: expected" "$T/e1.err" && [ ! -e "$T/e1" ]'
$H sweep "$SC" --grid 'ha_strategy=nodeads ha_perod_karma=10s' --out "$T/e2" 2> "$T/e2.err"
check "unknown key: the nearest named" '[ $? -eq 2 ] && grep -q "column 21: unknown setting .ha_perod_karma. (did you mean ha_period_karma?)" "$T/e2.err"'
$H sweep "$SC" --grid "$G" --duration 3m --shard 2/2 --out "$T/other" --quiet
$H merge "$T/shard1" "$T/other" --out "$T/mix" 2> "$T/mix.err"
check "shards of different sweeps are refused" '[ $? -eq 3 ] && grep -q "not shards of one sweep" "$T/mix.err" && [ ! -e "$T/mix/sweep.csv" ]'
$H merge "$T/shard1" --out "$T/half" 2> "$T/half.err"
check "a missing shard is named, no sweep.csv" '[ $? -eq 1 ] && grep -q "no results for grid point 1" "$T/half.err" && [ ! -e "$T/half/sweep.csv" ]'

echo "cli_sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
