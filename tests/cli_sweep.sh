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
for f in sweep.csv report.txt index.html recommendation.json; do
  check "$f: -j 1, -j 3 and merged shards identical" 'cmp -s "$T/j1/$f" "$T/j3/$f" && cmp -s "$T/j1/$f" "$T/merged/$f"'
done
check "sweep.csv: 4 settings x 3 replications" '[ $(($(wc -l < "$T/j1/sweep.csv") - 1)) -eq 12 ]'
check "replication r uses seed + r at every point (common random numbers)" '[ "$(awk -F, "NR>1 {print \$2 \"-\" \$3}" "$T/j1/sweep.csv" | sort -u | tr "\n" " ")" = "0-1 1-2 2-3 " ]'
check "nodeads at 10s and 60s tie: keep the current settings, with intervals in words" 'grep -Eq "^RECOMMENDATION: keep your current settings \(ha_strategy=nodeads ha_period_karma=60s\): no point of the grid is better beyond noise on p99, failures or re-admission: p99 [0-9.]+ \+- [0-9.]+ ms, [0-9.]+ \+- [0-9.]+% failed, readmitted in [0-9.]+ \+- [0-9.]+ s; findings: none" "$T/j1.out"'
check "the tie is said, with the metrics that tie" 'grep -q "^  rank 1 ties with rank 2 (ha_strategy=nodeads ha_period_karma=60s): within noise on p99, failures and re-admission$" "$T/j1.out"'
check "a global ha_strategy says what it overrode" 'grep -q "^ha_strategy in the grid overrides every table.s own: dist (nodeads)" "$T/j1.out"'
check "the current settings compared" 'grep -q "your current settings (ha_strategy=nodeads ha_period_karma=60s)" "$T/j1.out"'
check "noerrors ranks below nodeads here (it re-admits box2 later)" '[ "$(awk "/^ +[0-9]+  ha_strategy/ {print \$2}" "$T/j1.out" | tr "\n" " ")" = "ha_strategy=nodeads ha_strategy=nodeads ha_strategy=noerrors ha_strategy=noerrors " ]'
check "index.html has a heatmap and the ranking" 'grep -q "<h3>p99 by ha_strategy x ha_period_karma</h3>" "$T/j1/index.html" && grep -q "RECOMMENDATION" "$T/j1/index.html"'

# a one-point grid of the current settings is a plain run; of other settings, it runs beside them
$H sweep "$SC" --grid 'ha_strategy=nodeads ha_period_karma=60s' --duration 2m --out "$T/one" > "$T/one.out" 2>&1
check "one-point grid: a plain run's files and words" '[ -s "$T/one/summary.csv" ] && grep -q "^queries: " "$T/one.out" && grep -q "plain run" "$T/one.out"'
$H sweep "$SC" --grid 'ha_strategy=noerrors ha_period_karma=10s' --duration 2m --out "$T/base" > "$T/base.out" 2>&1; rc=$?
check "current settings outside the grid run as a baseline point, with their rank" '[ $rc -eq 0 ] && grep -q "1 settings and the current one" "$T/base.out" && grep -Eq "your current settings \(as configured \(ha_strategy=nodeads ha_period_karma=60\)\): .* rank [12] of 2" "$T/base.out" && [ -s "$T/base/runs/1.csv" ]'
# severe findings are never recommended: on stall.scn every point locks after the stall
$H sweep "$S/scenarios/stall.scn" --grid "$G" --replications 2 --out "$T/stall" > "$T/stall.out" 2>&1; rc=$?
check "recommendation.json says the same: keep, with the ties" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"schema\"]==\"hakarma-sweep/1\" and d[\"verdict\"]==\"keep\" and d[\"recommended\"][\"settings\"]==\"ha_strategy=nodeads ha_period_karma=60s\" and d[\"ties\"][0][\"rank\"]==2 and len(d[\"points\"])==4" "$T/j1/recommendation.json"'
check "stall.scn: no recommendation, every point locks, and which points tie" '[ $rc -eq 0 ] && grep -q "^every point raises a severe finding" "$T/stall.out" && grep -q "^RECOMMENDATION: none: every setting of the grid raises a severe finding (starved, locked, takeover" "$T/stall.out" && grep -q "^  rank 1 ties with rank 2 (ha_strategy=nodeads ha_period_karma=60s)" "$T/stall.out" && grep -q "\"verdict\": \"none: every point raises a severe finding\"" "$T/stall/recommendation.json" && grep -q "\"recommended\": null" "$T/stall/recommendation.json"'
# per-table keys, and values as the cluster's version reads them
$H sweep "$S/scenarios/textbook.scn" --grid 'mydist.ha_strategy=nodeads,random ha_period_karma=10s,30s' --variant sphinx2 --duration 1m --replications 2 --out "$T/tbl" > "$T/tbl.out" 2>&1; rc=$?
check "TABLE.ha_strategy sweeps that table; no global override is claimed" '[ $rc -eq 0 ] && grep -q "mydist.ha_strategy=random" "$T/tbl.out" && ! grep -q "overrides every table" "$T/tbl.out"'
$H sweep "$SC" --grid 'ha_period_karma=10s,20s' --variant sphinx2 --replications 2 --out "$T/s2" > "$T/s2.out" 2>&1; rc=$?
check "a 2.2.11 cluster is told bare numbers (no time suffixes): 20 s re-admits in 7 s, 60 s in 16" '[ $rc -eq 0 ] && grep -q "^RECOMMENDATION: ha_period_karma=20s: .*readmitted in 7.0" "$T/s2.out" && grep -qx "  in the config (as Sphinx 2.2.11, with no time suffixes, reads it): searchd: ha_period_karma = 20" "$T/s2.out"'
$H sweep "$SC" --grid 'nosuch.ha_strategy=nodeads,random' --out "$T/nt" > "$T/nt.out" 2>&1; rc=$?
check "an unknown table in a grid key: rc 2, named" '[ $rc -eq 2 ] && grep -q "no distributed table .nosuch." "$T/nt.out" && [ ! -e "$T/nt/sweep.csv" ]'
$H sweep "$SC" --grid 'ha_strategy=nodeads,nodeads' --out "$T/dup" > "$T/dup.out" 2>&1; rc=$?
check "a grid value given twice: rc 2" '[ $rc -eq 2 ] && grep -q "given twice" "$T/dup.out"'
$H sweep "$SC" --grid 'dist.ha_period_karma=10s,60s' --out "$T/gk" > "$T/gk.out" 2>&1; rc=$?
check "a searchd-wide key per table: rc 2" '[ $rc -eq 2 ] && grep -q "searchd-wide setting" "$T/gk.out"'

# errors
$H sweep "$SC" --grid 'ha_strategy=nodeads,noerors' --out "$T/e1" 2> "$T/e1.err"
check "bad value: exit 2 at its column" '[ $? -eq 2 ] && grep -q "column 21: ha_strategy: expected" "$T/e1.err" && [ ! -e "$T/e1" ]'
$H sweep "$SC" --grid 'ha_strategy=nodeads ha_perod_karma=10s' --out "$T/e2" 2> "$T/e2.err"
check "unknown key: the nearest named" '[ $? -eq 2 ] && grep -q "column 21: unknown setting .ha_perod_karma. (did you mean ha_period_karma?)" "$T/e2.err"'
$H sweep "$SC" --grid "$G" --duration 3m --shard 2/2 --out "$T/other" --quiet
$H merge "$T/shard1" "$T/other" --out "$T/mix" 2> "$T/mix.err"
check "shards of different sweeps are refused" '[ $? -eq 3 ] && grep -q "not shards of one sweep" "$T/mix.err" && [ ! -e "$T/mix/sweep.csv" ]'
$H merge "$T/shard1" --out "$T/half" 2> "$T/half.err"
check "a missing shard is named (exit 3), no sweep.csv" '[ $? -eq 3 ] && grep -q "no results for grid point 1" "$T/half.err" && [ ! -e "$T/half/sweep.csv" ]'
# a merge that trusts nothing: each damaged copy of a shard is refused, the file named
damage() { rm -rf "$T/dmg"; cp -r "$T/shard2" "$T/dmg"; }
merge_refused() { # what: the shard copy is damaged; expect: the words of the refusal
  $H merge "$T/shard1" "$T/dmg" --out "$T/mdmg" > "$T/mdmg.out" 2>&1; local rc=$?
  [ $rc -eq 3 ] && grep -q "$1" "$T/mdmg.out" && [ ! -e "$T/mdmg/sweep.csv" ] && [ ! -e "$T/mdmg/sweep.meta" ]
}
damage; head -n -2 "$T/dmg/runs/1.csv" > "$T/x" && mv "$T/x" "$T/dmg/runs/1.csv"
check "a point file cut at a line boundary is refused, named" 'merge_refused "dmg/runs/1.csv: expected its last line to be the seal"'
for v in nan inf 1e308 -1e300; do
  damage; awk -F, -v v=$v 'BEGIN{OFS=","} NR==1 {$9=v} {print}' "$T/dmg/runs/1.csv" > "$T/x" && mv "$T/x" "$T/dmg/runs/1.csv"
  check "a p99 of $v in a point file is refused, named" 'merge_refused "dmg/runs/1.csv: its rows do not match their checksum"'
done
damage; cp "$T/dmg/runs/1.csv" "$T/dmg/runs/99.csv"
check "an extra runs/99.csv outside the grid is refused, named" 'merge_refused "99.csv. is not a point of this sweep"'
$H merge "$T/shard1" "$T/shard2" "$T/shard2" --out "$T/dup2" > "$T/dup2.out" 2>&1; rc=$?
check "a shard given twice is refused (exit 3)" '[ $rc -eq 3 ] && grep -q "grid point 1 is in .*shard2 too" "$T/dup2.out"'
damage; sed -i 's/^end,1,3,/end,0,3,/' "$T/dmg/runs/1.csv"
check "a point file under another point's name is refused" 'merge_refused "its seal is of another point"'
$H merge "$T/shard1" "$T/shard2" --out "$T/merged" > "$T/again.out" 2>&1; rc=$?
check "merge refuses a finished --out without --force" '[ $rc -eq 2 ] && grep -q "holds a finished run" "$T/again.out" && cmp -s "$T/j1/sweep.csv" "$T/merged/sweep.csv"'
# shards that resume: a killed sweep finishes with --resume, byte-identical, its done points kept
$H sweep "$SC" --grid "$G" -j 1 --out "$T/res" > /dev/null 2>&1 & RP=$!
for _ in $(seq 300); do [ -s "$T/res/runs/1.csv" ] && break; sleep 0.05; done
kill -9 $RP; wait $RP 2>/dev/null
done_before=$(ls "$T/res/runs" | grep -c '\.csv$')
t0=$(stat -c %Y "$T/res/runs/0.csv")
$H sweep "$SC" --grid "$G" -j 1 --out "$T/res" --resume --quiet; rc=$?
check "a killed sweep finishes with --resume ($done_before points were done)" '[ $rc -eq 0 ] && [ "$done_before" -ge 1 ] && [ "$(stat -c %Y "$T/res/runs/0.csv")" = "$t0" ]'
for f in sweep.csv report.txt; do
  check "resumed $f identical to one process" 'cmp -s "$T/j1/$f" "$T/res/$f"'
done

# --- preemption: SIGTERM keeps every finished point; the rerun runs only the rest ------------------
G4='ha_strategy=nodeads,noerrors,random,roundrobin ha_period_karma=10s,60s'
$H sweep "$SC" --grid "$G4" -j 2 --out "$T/u" --quiet
$H sweep "$SC" --grid "$G4" -j 2 --out "$T/pre" --resume > /dev/null 2> "$T/pre.err" & RP=$!
for _ in $(seq 400); do [ "$(ls "$T/pre/runs" 2>/dev/null | grep -c 'csv$')" -ge 3 ] && break; sleep 0.05; done
kill -TERM $RP; wait $RP; rc=$?
kept=$(ls "$T/pre/runs" | grep -c 'csv$')
check "SIGTERM of a --resume sweep: exit 143, its $kept finished points kept and said, not finished" '[ $rc -eq 143 ] && [ "$kept" -ge 3 ] && grep -q "$kept finished points kept" "$T/pre.err" && [ ! -e "$T/pre/.hakarma.done" ] && [ -z "$(find "$T/pre" -name "*.part")" ]'
t0=$(stat -c %Y.%N "$T/pre/runs/0.csv"); sleep 1.1
$H sweep "$SC" --grid "$G4" -j 2 --out "$T/pre" --resume --quiet; rc=$?
check "... rerun with --resume: byte-identical to an uninterrupted sweep (diff -r)" '[ $rc -eq 0 ] && diff -r "$T/u" "$T/pre" > /dev/null'
check "... running only the points it lacked" '[ "$(stat -c %Y.%N "$T/pre/runs/0.csv")" = "$t0" ]'
$H sweep "$SC" --grid "$G" -j 1 --out "$T/pre" --resume > "$T/og.out" 2>&1; rc=$?
check "--resume with another grid on a finished sweep: exit 3, the grid named, the sweep intact" '[ $rc -eq 3 ] && grep -q "the grid differs" "$T/og.out" && diff -r "$T/u" "$T/pre" > /dev/null'
# --- blends: a point's seal covers every file the scenario names, and hakarma's version ------------
printf 'ms\n4\n5\n6\n5\n' > "$T/lat.csv"
sed 's|service = lognormal(median=5ms, sigma=0.3)|service = empirical(lat.csv, ms)|' "$SC" > "$T/emp.scn"
grep -q 'empirical(lat.csv' "$T/emp.scn" || echo "FAIL: the empirical scenario was not made"
$H sweep "$T/emp.scn" --grid "$G" --duration 3m --shard 1/2 --out "$T/b1" --quiet
printf 'ms\n40\n50\n60\n50\n' > "$T/lat.csv"
$H sweep "$T/emp.scn" --grid "$G" --duration 3m --shard 2/2 --out "$T/b2" --quiet
$H merge "$T/b1" "$T/b2" --out "$T/bm" > "$T/bm.out" 2>&1; rc=$?
check "shards run with lat.csv edited between them: merge refuses (exit 3), naming the file" '[ $rc -eq 3 ] && grep -q "the file lat.csv the scenario names differs" "$T/bm.out" && [ ! -e "$T/bm/sweep.csv" ]'
$H sweep "$T/emp.scn" --grid "$G" --duration 3m --shard 1/2 --out "$T/b1" --resume > "$T/br.out" 2>&1; rc=$?
check "... and so does --resume of the first shard (exit 3, the file named, its points kept)" '[ $rc -eq 3 ] && grep -q "lat.csv" "$T/br.out" && [ -e "$T/b1/.hakarma.done" ] && [ -s "$T/b1/runs/0.csv" ]'
grep -q "^version	" "$T/b1/sweep.meta" && grep -q "^file	.*	lat.csv$" "$T/b1/sweep.meta"
check "sweep.meta records hakarma's version and each named file's size and digest" '[ $? -eq 0 ]'
cp -r "$T/shard1" "$T/sh1"; cp -r "$T/shard2" "$T/sh2"
$H merge "$T/sh1" "$T/sh2" --out "$T/sh2" --force > "$T/self.out" 2>&1; rc=$?
check "merge --force --out naming one of its shards: refused (exit 3), the shard intact" '[ $rc -eq 3 ] && grep -q "is the shard" "$T/self.out" && diff -r "$T/shard2" "$T/sh2" > /dev/null'
$H merge "$T/sh1" "$T/sh2" --out "$T/sh1/inner" > "$T/self2.out" 2>&1; rc=$?
check "... or an --out inside one of them (exit 3)" '[ $rc -eq 3 ] && [ ! -e "$T/sh1/inner" ]'

# --- a failed query is never a fast one: an all-failing point ranks last, latency n/a ---------------
$H sweep "$SC" --grid 'agent_query_timeout=1ms,3000ms ha_strategy=nodeads,noerrors' --duration 3m --out "$T/af" --quiet
check "an all-failing point: latency n/a in sweep.csv, never 0" 'awk -F, "\$4 == \"1ms\"" "$T/af/sweep.csv" | grep -q ",100.0000,n/a,n/a,n/a,n/a," && ! awk -F, "\$4 == \"1ms\" && \$10 == \"0.0000\"" "$T/af/sweep.csv" | grep -q .'
check "... ranked last, n/a in the table, never on the Pareto front" 'grep -E "^ +[34]  agent_query_timeout=1ms" "$T/af/report.txt" | grep -q " n/a 100.000" && ! grep -E "agent_query_timeout=1ms.* yes " "$T/af/report.txt"'
python3 - "$T/af/recommendation.json" > "$T/af.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d['points']:
    if 'agent_query_timeout=1ms' in p['settings']:
        assert p['p99_ms']['mean'] is None and p['p99_ms']['why'], p
        assert p.get('pareto') is not True, p
    r = p['readmit_s']
    assert (r['mean'] is None) == (p['readmit'] != 'readmitted'), p
    if r['mean'] is None:
        assert r['why'], p
assert 'agent_query_timeout=1ms' not in json.dumps(d.get('recommended')), d.get('recommended')
print('ok')
PY
check "recommendation.json: no number for what did not happen (null, with why); the failing point never recommended" 'grep -qx ok "$T/af.check" || { cat "$T/af.check"; false; }'
$H sweep "$SC" --grid 'ha_strategy=noerrors,random ha_period_karma=10s,30s' --duration 3m --out "$T/asc" --quiet
check "a grid without the current settings ranks them too ('as configured')" 'grep -Eq "^ +[0-9]+  as configured \(" "$T/asc/report.txt"'
python3 - "$T/af/report.txt" "$T/j1/report.txt" "$T/asc/report.txt" > "$T/cols.check" 2>&1 <<'PY'
import re, sys
for f in sys.argv[1:]:
    lines = open(f).read().split('\n')
    h = next(l for l in lines if l.startswith('rank  settings'))
    ends = [h.index(c) + len(c) for c in ('p99 ms', 'failed %', 'readmit s')]
    rows = [l for l in lines if re.match(r'^ +\d+  ', l)]
    assert rows, f
    for r in rows:
        for e in ends:
            assert r[e - 1] != ' ' and r[e] == ' ', (f, e, r)
print('ok')
PY
check "the ranking's columns line up under their headers, the 'as configured' row too" 'grep -qx ok "$T/cols.check" || { cat "$T/cols.check"; false; }'
check "the heatmap: coloured by rank, the severe cells framed and said" 'grep -q "mean rank" "$T/af/index.html" && grep -q "&#9888; severe" "$T/af/index.html" && grep -q ">n/a &#9888; severe</td>" "$T/af/index.html"'

# a fault that starts after the run never happened: no re-admission to wait for, never "never"
$H sweep "$SC" --grid 'ha_strategy=nodeads,noerrors' --duration 100s --out "$T/outside" --quiet
check "a fault after the run's end: readmit '-' and 'no fault' in JSON, not never" '! grep -q " never " "$T/outside/report.txt" && ! grep -q "readmit never" "$T/outside/report.txt" && grep -q "\"readmit\": \"no fault\"" "$T/outside/recommendation.json"'
echo "cli_sweep: $pass passed, $fail failed"
[ $fail -eq 0 ]
