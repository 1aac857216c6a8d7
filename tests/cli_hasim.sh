#!/usr/bin/env bash
# Integration: run build/hasim as a user would. Determinism (byte-identical
# stdout and files), output files and their rows, --strategy all, plots (valid
# PNG/SVG), exit codes and error positions for bad input, no partial files.
set -u
B=$1; S=$2
for bin in hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

H="$B/hasim"
$H "$S/scenarios/textbook.scn" --out "$T/a" --duration 5m > "$T/a.out" 2> "$T/a.err"
check "textbook run exits 0" '[ $? -eq 0 ]'
$H "$S/scenarios/textbook.scn" --out "$T/b" --duration 5m > "$T/b.out" 2>&1; brc=$?
check "stdout byte-identical on rerun" '[ $brc -eq 0 ] && grep -q "^FINDINGS" "$T/b.out" && cmp -s "$T/a.out" <(sed "s#$T/b#$T/a#" "$T/b.out")'
for f in periods.csv summary.csv agent_status.txt latency.csv convergence.csv report.txt; do
  check "$f written" '[ -s "$T/a/$f" ]'
  check "$f identical on rerun" 'cmp -s "$T/a/$f" "$T/b/$f"'
done
check "no .part files left (and the files are there)" '[ -s "$T/a/summary.csv" ] && [ -z "$(find "$T/a" -name "*.part")" ]'
check "periods.csv header" 'head -1 "$T/a/periods.csv" | grep -q "^period,t_start_s,master,table,agent,mirror,probability,weight,queries,errors,alive,latency_mean_ms,latency_p99_ms$"'
check "periods.csv: 5 periods x 4 mirrors" '[ $(($(wc -l < "$T/a/periods.csv") - 1)) -eq 20 ]'
check "summary.csv: 4 mirrors" '[ $(($(wc -l < "$T/a/summary.csv") - 1)) -eq 4 ]'
check "agent_status has weights" 'grep -q "dstindex_1mirror4_probability_weight	25.00%" "$T/a/agent_status.txt"'
check "stdout has the table" 'grep -q "box4:9312" "$T/a.out" && grep -q "p99.9" "$T/a.out"'

$H "$S/scenarios/textbook.scn" --out "$T/s" --duration 3m --seed 5 > /dev/null 2>&1
$H "$S/scenarios/textbook.scn" --out "$T/t" --duration 3m --seed 6 > /dev/null 2>&1
check "--seed changes the run" '[ -s "$T/s/periods.csv" ] && [ -s "$T/t/periods.csv" ] && ! cmp -s "$T/s/periods.csv" "$T/t/periods.csv"'

$H "$S/scenarios/textbook.scn" --out "$T/q" --duration 30s --queries > /dev/null 2>&1
check "queries.csv header" 'head -1 "$T/q/queries.csv" | grep -q "^id,t_sched_s,t_sent_s,table,agent,mirror,attempts,status,latency_ms$"'
n=$(awk -F, 'NR>1{print $1}' "$T/q/queries.csv" | sort -u | wc -l)
check "every query has a row" '[ "$n" -gt 5000 ] && [ $(($(wc -l < "$T/q/queries.csv") - 1)) -eq "$n" ]'

$H "$S/tests/corpus/failing-rr-errors.scn" --out "$T/fo" --fail-on locked,failing > /dev/null 2>&1; rc=$?
check "--fail-on failing exits 4 when m2 fails (and the files are complete)" '[ $rc -eq 4 ] && [ -s "$T/fo/report.txt" ] && [ -z "$(find "$T/fo" -name "*.part")" ]'
check "findings.json: the schema, the failing mirror, every kind checked" 'grep -q "\"schema\": \"hakarma-findings/1\"" "$T/fo/findings.json" && grep -q "\"mirror\": \"b:9312\"" "$T/fo/findings.json" && grep -q "\"fault_outside_run\": 0" "$T/fo/findings.json"'
$H "$S/tests/corpus/failing-rr-errors.scn" --out "$T/fo2" --fail-on locked,starved > /dev/null 2>&1; rc=$?
check "--fail-on of kinds not raised exits 0" '[ $rc -eq 0 ]'
$H "$S/tests/corpus/failing-rr-errors.scn" --out "$T/fo3" --fail-on severe > /dev/null 2>&1; rc=$?
check "--fail-on severe counts failing" '[ $rc -eq 4 ]'
$H "$S/tests/corpus/failing-rr-errors.scn" --out "$T/fo4" --fail-on lockd > "$T/fo4.out" 2>&1; rc=$?
check "--fail-on an unknown kind: rc 2, the nearest named" '[ $rc -eq 2 ] && grep -q "did you mean .locked" "$T/fo4.out"'
for name in nodeadsfoo noerrors2 random_x nodeads,nodeads; do
  $H "$S/scenarios/textbook.scn" --out "$T/en" --duration 30s --strategy "$name" > "$T/en.out" 2>&1; rc=$?
  check "--strategy $name is refused with rc 2 (exact names only, each once)" '[ $rc -eq 2 ] && [ ! -e "$T/en" ]'
done
check "a near name is suggested" 'grep -q "did you mean .nodeads.?" <($H "$S/scenarios/textbook.scn" --out "$T/en" --strategy nodeadsfoo 2>&1)'
$H "$S/scenarios/textbook.scn" --out "$T/lst" --duration 30s --strategy roundrobin,peak-ewma > "$T/lst.out" 2>&1; rc=$?
check "a comma list runs each, the configured strategy (noerrors) first" '[ $rc -eq 0 ] && [ "$(cut -d, -f1 "$T/lst/strategies.csv" | tail -n +2 | tr "\n" " ")" = "noerrors roundrobin peak-ewma " ]'
$H "$S/scenarios/textbook.scn" --out "$T/every" --duration 30s --strategy every > /dev/null 2>&1; rc=$?
check "--strategy every: searchd's four and the four extensions" '[ $rc -eq 0 ] && [ $(($(wc -l < "$T/every/strategies.csv") - 1)) -eq 8 ] && grep -q "^c3," "$T/every/strategies.csv"'
$H "$S/scenarios/textbook.scn" --out "$T/all" --duration 3m --strategy all --plot > "$T/all.out" 2>&1; allrc=$?
check "--strategy all exits 0" '[ $allrc -eq 0 ]'
check "strategies.csv has 4 rows" '[ $(($(wc -l < "$T/all/strategies.csv") - 1)) -eq 4 ]'
check "side-by-side rows" '[ $(grep -cE "^(random|roundrobin|nodeads|noerrors)/manticore .* (static|[0-9]+ s) " "$T/all.out") -eq 4 ]'
check "per-mirror shares beside them" 'grep -q "^share of its line.s attempts" "$T/all.out" && [ $(grep -cE "^(random|roundrobin|nodeads|noerrors)/manticore( +[0-9]+\.[0-9]){4}$" "$T/all.out") -eq 4 ]'
check "gnuplot says nothing on the terminal (no failures: the failure panel used to warn)" '[ $allrc -eq 0 ] && grep -q "^FINDINGS" "$T/all.out" && ! grep -qi "warning" "$T/all.out"'
check "identical runs (textbook under manticore: 25% each): no chart of identical bars, said" '[ ! -e "$T/all/plots/strategies_p99.png" ] && [ ! -e "$T/all/plots/strategies_cdf.png" ] && grep -q "no comparison chart: every run gave the same" "$T/all.out" && grep -q "No comparison chart" "$T/all/index.html"'
$H "$S/scenarios/dies-recovers.scn" --out "$T/dr" --duration 4m --strategy all --plot > "$T/dr.out" 2>&1
check "dies-recovers compared: failures and shares drawn, identical latencies not" '[ $? -eq 0 ] && [ ! -e "$T/dr/plots/strategies_cdf.png" ] && [ -s "$T/dr/plots/strategies_shares.png" ] && [ -s "$T/dr/plots/strategies_p99.png" ]'
check "strategies.csv: numeric re-admission and a share per mirror" 'head -1 "$T/dr/strategies.csv" | grep -q ",readmit_s box2:9312,share dist/1/box1:9312,share dist/1/box2:9312,share dist/1/box3:9312$"'
for p in strategies_shares strategies_p99; do
  check "$p.png is a PNG" '[ "$(head -c 8 "$T/dr/plots/$p.png" | od -An -tx1 | tr -d " \n")" = "89504e470d0a1a0a" ]'
  check "$p.svg is SVG" 'grep -q "<svg" "$T/dr/plots/$p.svg"'
done
for p in convergence latency queries; do
  check "$p.png per strategy" '[ "$(head -c 4 "$T/all/nodeads-manticore/plots/$p.png" | od -An -tx1 | tr -d " \n")" = "89504e47" ]'
done
check "probability data has 4 mirror blocks" '[ $(grep -c "^\"box" "$T/all/nodeads-manticore/plots/prob_0.dat") -eq 4 ]'
for p in shares queries; do
  check "$p.png per strategy" '[ "$(head -c 4 "$T/all/nodeads-manticore/plots/$p.png" | od -An -tx1 | tr -d " \n")" = "89504e47" ]'
done
check "index.html opens with the findings, as a list that wraps" 'sed -n 6,7p "$T/all/nodeads-manticore/index.html" | grep -q "^<h2>Findings</h2>" && grep -q "white-space:pre-wrap" "$T/all/nodeads-manticore/index.html"'
check "the charts read: no panel over another, no fault tint over a stacked series" 'python3 "$S/tests/svg_check.py" "$T"/all/*/plots/*.svg "$T"/dr/plots/*.svg > "$T/svg.out" && grep -q "^svg_check: [0-9]* charts, [0-9]* panels, 0 problems" "$T/svg.out"'

# plots draw an effect where it happened: m07 slows at 90 s, so its probability cannot drop
# before 90 s (it did when each karma period's mean was drawn from the period's start)
$H "$S/scenarios/spike.scn" --out "$T/spike" --plot --quiet
first_drop=$(awk '/^"m07/ {on=1; next} /^"/ {on=0} on && NF==2 && $1 >= 5 && $2 < 0.05 {print $1; exit}' "$T/spike/plots/prob_0.dat")
check "spike: m07's drop is drawn after its fault began (at ${first_drop:-none} s)" '[ -n "$first_drop" ] && awk -v t="$first_drop" "BEGIN {exit !(t >= 90 && t < 120)}"'
check "spike: the fault window is shaded from 90 s" 'grep -q "rect from 90.000" "$T/spike/plots/marks_0.gp"'
check "spike: its charts read too" 'python3 "$S/tests/svg_check.py" "$T"/spike/plots/*.svg > /dev/null'
# two faults at one instant: their labels stacked, not printed on each other
cat > "$T/two.scn" <<'SCN'
table d {
    type = distributed
    agent = a:9312|b:9312|c:9312:s
    ha_strategy = nodeads
}
mirror default { service = constant(5ms) }
fault a:9312 { at = 60s  kind = down  for = 60s }
fault b:9312 { at = 60s  kind = errors(0.5)  for = 60s }
workload { arrivals = poisson(50/s)  duration = 3m }
SCN
$H "$T/two.scn" --out "$T/two" --plot --quiet 2> /dev/null
check "two faults at 60 s: labels one under the other" '[ $(grep -c "at 60.000, graph 0.97 left .* offset character 0.6, character -1.1$" "$T/two/plots/marks_0.gp") -eq 1 ] && [ $(grep -c "at 60.000, graph 0.97 left .* offset character 0.6, character -0.0$" "$T/two/plots/marks_0.gp") -eq 1 ]'
check "two faults: stacked charts framed, not tinted" 'python3 "$S/tests/svg_check.py" "$T"/two/plots/*.svg > /dev/null'
# a large cluster's table folds the rows nothing is about, and keeps the faulted one
$H "$S/scenarios/large-64x3.scn" --out "$T/large" --duration 150s > "$T/large.out" 2>&1
check "large-64x3: the table keeps n050 (faulted) and says how many rows it folded" 'grep -q "^big  *17 n050:9312 " "$T/large.out" && grep -q "^\.\.\. [0-9]* more mirror rows folded (no fault or finding is about them)" "$T/large.out" && [ $(sed -n "/^table /,/^\.\.\./p" "$T/large.out" | wc -l) -le 50 ]'
# panels share one x range: every chart of the run is set to the run's length
check "plots are told the run's length" 'grep -q "^duration_s,240.000" "$T/spike/run.csv"'
check "index.html shows the plots" 'grep -q "plots/strategies_shares.png" "$T/dr/index.html" && grep -q "nodeads-manticore/index.html" "$T/all/index.html"'

PATH=/nonexistent $H "$S/scenarios/textbook.scn" --out "$T/np" --duration 1m --plot > /dev/null 2> "$T/np.err"
check "no gnuplot: exit 1 (the plots asked for were not drawn)" '[ $? -eq 1 ]'
check "no gnuplot: one clear line" 'grep -q "gnuplot not found" "$T/np.err" && [ $(wc -l < "$T/np.err") -eq 1 ]'
check "no gnuplot: CSVs still written, the folder finished, no chart" '[ -s "$T/np/periods.csv" ] && [ -e "$T/np/.hakarma.done" ] && [ -z "$(ls "$T/np/plots" | grep -E "png|svg")" ]'

printf 'table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { service = constant(1ms) }\nworkload { arrivals = poisson(1/s) duratoin = 1m }\n' > "$T/bad.scn"
$H "$T/bad.scn" --out "$T/bad" > /dev/null 2> "$T/bad.err"; brc=$?
check "bad scenario exits 3" '[ $brc -eq 3 ]'
check "bad scenario names file:line:col" 'grep -q "bad.scn:5:36: unknown key .duratoin." "$T/bad.err"'
check "bad scenario writes no output folder" '[ $brc -eq 3 ] && [ ! -e "$T/bad/summary.csv" ]'
$H > /dev/null 2>&1; check "no args exits 2" '[ $? -eq 2 ]'
$H "$S/scenarios/textbook.scn" --strategy fastest > /dev/null 2>&1; check "bad strategy exits 2" '[ $? -eq 2 ]'
$H "$T/missing.scn" > /dev/null 2> "$T/m.err"; check "missing file exits 3" '[ $? -eq 3 ] && grep -q "cannot open" "$T/m.err"'

# replications: 95% confidence intervals
sed 's/sim      { seed = 1  variant = manticore }/sim { seed = 1  replications = 3 }/' "$S/scenarios/textbook.scn" > "$T/rep.scn"
$H "$T/rep.scn" --out "$T/rep" --duration 2m > "$T/rep.out" 2>&1
check "replications: mean ± CI printed" 'grep -q "3 replication(s) per row, mean ± 95% CI" "$T/rep.out" && grep -q "±" "$T/rep.out"'

# files named by a scenario: a real config's tables, empirical latencies, trace arrivals
{ echo "latency_ms"; for i in $(seq 1 50); do echo "$((i % 7 + 1)).5"; done; } > "$T/lat.csv"
{ echo "t_s,other"; for i in $(seq 0 299); do printf '%d.%02d,x\n' $((i/100)) $((i%100)); done; } > "$T/arr.csv"
cp "$S/tests/data/manticore.conf" "$T/prod.conf"
cat > "$T/files.scn" <<'SCN'
searchd  { ha_period_karma = 10s }
mirror default { service = empirical(lat.csv, latency_ms) }
workload { arrivals = trace(arr.csv, t_s)  duration = 1m  table = products }
sim { config = prod.conf  seed = 2 }
SCN
$H "$T/files.scn" --out "$T/files" --queries > "$T/files.out" 2> "$T/files.err"
check "config= / empirical / trace scenario runs" '[ $? -eq 0 ]'
check "trace arrivals: 300 queries" 'grep -q "queries: 300: answered 300" "$T/files.out"'
check "tables come from the named config (2 shards of products)" '[ $(awk -F, "NR>1 && \$4==\"products\"" "$T/files/queries.csv" | wc -l) -eq 600 ]'
p50_in_range() { awk -F, '$1=="products" {n++; if ($8+0 < 1.4 || $8+0 > 7.6) bad=1} END {exit bad || n != 4}' "$1"; }
check "empirical latencies: p50 within the samples (1.5..7.5 ms)" 'p50_in_range "$T/files/summary.csv"'
check "the scenario's searchd overrides the config's karma" 'grep -q "status_period_seconds	10" "$T/files/agent_status.txt"'
printf 'latency_ms\n1\nfast\n' > "$T/badlat.csv"
sed 's/lat.csv/badlat.csv/' "$T/files.scn" > "$T/badlat.scn"
$H "$T/badlat.scn" --out "$T/badlat" > /dev/null 2> "$T/badlat.err"
check "bad sample file names file:line:col" '[ $? -eq 3 ] && grep -q "badlat.csv:3:1: column latency_ms: expected a latency" "$T/badlat.err"'

# A real Manticore master's SHOW AGENT STATUS, measured (issue 14): 2 header rows, then 49 rows
# per host; windowed query time never summed; msecsperqueryy n/a without connect timeouts; the
# misplaced counters shown /10 with two decimals
$H "$S/scenarios/manticore-stall.scn" --out "$T/mst" > /dev/null 2>&1
st="$T/mst/agent_status.txt"
check "manticore status: 2 header rows + 49 per host" '[ $(grep -c "^status_" "$st") -eq 2 ] && [ $(grep -c "^ag_" "$st") -eq $((4 * 49)) ]'
check "manticore status: total_query_time 0 in every window" '[ $(grep -c "periods_total_query_time	0$" "$st") -eq 12 ]'
check "manticore status: msecsperqueryy n/a, no query_timeouts row" '[ $(grep -c "periods_msecsperqueryy	n/a$" "$st") -eq 12 ] && ! grep -q "query_timeouts" "$st"'
check "manticore status: connect_failures and network_errors as x.yy" '[ $(grep -cE "periods_(connect_failures|network_errors)	[0-9]+\.[0-9][0-9]$" "$st") -eq 24 ]'
$H "$S/scenarios/manticore-stall.scn" --variant manticore-fixed --out "$T/mstf" > /dev/null 2>&1
check "manticore-fixed status: window query time summed" '[ $(grep -c "periods_total_query_time	0$" "$T/mstf/agent_status.txt") -lt 12 ]'

# a mirror with no behaviour cannot be simulated: refused at its agent line, nothing written
printf 'table d {\n type = distributed\n agent = a:1|b:1:s\n}\nmirror b:1 { service = 1ms }\nworkload { arrivals = poisson(10/s)  duration = 1s }\n' > "$T/nobeh.scn"
$H "$T/nobeh.scn" --out "$T/nobeh" > /dev/null 2> "$T/nobeh.err"
check "a mirror without behaviour: exit 3 at its agent line, no folder" '[ $? -eq 3 ] && grep -q "nobeh.scn:3:10: mirror a:1 has no behaviour" "$T/nobeh.err" && [ ! -e "$T/nobeh" ]'

# a mirror that never answered has no latency: n/a in summary.csv, never 0 ms
sed 's/fault box2:9312 { at = 120s  for = 4m  kind = down }/fault box2:9312 { at = 0s  for = 10m  kind = down }/' "$S/scenarios/dies-recovers.scn" > "$T/dead.scn"
$H "$T/dead.scn" --duration 1m --out "$T/dead" --quiet
check "a mirror that never answered: n/a latency in summary.csv, its failures counted" 'grep -q "^dist,1,box2:9312,[0-9]*,[0-9.]*,[1-9][0-9]*,n/a,n/a,n/a,n/a,n/a,0,0,0,0$" "$T/dead/summary.csv" && ! grep -q ",0.000," "$T/dead/summary.csv"'
# a mirror refusing every connect is as dead to nodeads as a declared outage: its pings are
# refused too (they connect as queries do), so they never revive it (428 attempts against 4 before)
cat > "$T/ref.scn" <<'SCN'
searchd { ha_period_karma = 10s  ha_ping_interval = 1000 }
table d { type = distributed  agent = a:1|b:1|c:1:s  ha_strategy = nodeads }
mirror default { rtt = constant(0.2ms)  service = lognormal(median=5ms, sigma=0.3)  threads = 8 }
mirror b:1 { rtt = constant(0.2ms)  service = lognormal(median=5ms, sigma=0.3)  threads = 8  refuse = 1 }
workload { arrivals = poisson(100/s)  duration = 2m }
SCN
sed 's/  refuse = 1 }/ }\nfault b:1 { at = 0s  for = 10m  kind = down }/' "$T/ref.scn" > "$T/refdown.scn"
$H "$T/ref.scn" --out "$T/ref" --quiet; $H "$T/refdown.scn" --out "$T/refdown" --quiet
att() { awk -F, '$3 == "b:1" {print $4}' "$1/summary.csv"; }
check "refuse = 1 under nodeads: as few attempts as a declared outage ($(att "$T/ref") vs $(att "$T/refdown"))" '[ -n "$(att "$T/ref")" ] && [ "$(att "$T/ref")" -eq "$(att "$T/refdown")" ] && [ "$(att "$T/ref")" -lt 10 ]'
# what the engine could not do comes back to the front end, which says it as hasim's
$H "$S/scenarios/dies-recovers.scn" --table-map x=nosuch --out "$T/tmap" > /dev/null 2> "$T/tmap.err"
check "--table-map to a table the config lacks: exit 2, said as hasim's, nothing written" '[ $? -eq 2 ] && grep -q "^hasim: --table-map x=nosuch: the config has no distributed table .nosuch.$" "$T/tmap.err" && [ ! -e "$T/tmap/summary.csv" ]'
# a master out of ports to a mirror: said when and at what rate, and its failing mirrors say why
$H "$S/tests/corpus/port-exhaustion.scn" --out "$T/ports" --fail-on port_exhaustion > "$T/ports.out" 2>&1; prc=$?
check "port exhaustion: found (exit 4 under --fail-on), its time and rate said, the failing mirror names it as the cause" '[ $prc -eq 4 ] && grep -q "port_exhaustion .*connects to a:1 at [0-9]*/s: port exhaustion from [0-9.]* s" "$T/ports.out" && grep -q "failing .*a:1 fails .*found no free port (port_exhaustion)" "$T/ports.out" && grep -q "^d,1,a:1,[0-9]*,[0-9.]*,[1-9][0-9]*,.*,[1-9][0-9]*,0,0,0$" "$T/ports/summary.csv"'
echo "cli_hasim: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
