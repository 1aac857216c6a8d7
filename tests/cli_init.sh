#!/usr/bin/env bash
# Integration: hasim init. A run's SHOW AGENT STATUS (mysql -B form, then the mysql table form)
# plus its config gives a scenario that runs as is and predicts the run's per-mirror shares;
# a sphinxql query log becomes the trace, with the table map written; hosts the status lacks get
# a default that says it is a guess; bad input names file:line and leaves no scenario.
set -u
B=$1; S=$2
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
H="$B/hasim"
share() { awk -F, -v m="$2" '$3 == m {print $5}' "$1/summary.csv"; }
# near A B TOL: both are numbers (an empty figure, from a binary that crashed, is never near)
near() { [[ "$1" =~ ^-?[0-9.]+(e-?[0-9]+)?$ && "$2" =~ ^-?[0-9.]+(e-?[0-9]+)?$ ]] &&
         awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {d = a - b; exit !(d <= t && d >= -t)}'; }

# "production": the manual's 10/5/30/3 ms cluster under Sphinx 2.2.11, 20 minutes
cat > "$T/prod.conf" <<'CONF'
searchd { ha_period_karma = 60  ha_ping_interval = 1000 }
index mydist {
    type        = distributed
    agent       = box1:9312|box2:9312|box3:9312|box4:9312:shard1
    ha_strategy = noerrors
}
CONF
cat > "$T/prod.scn" <<SCN
sim { config = prod.conf  variant = sphinx2  seed = 7 }
mirror box1:9312 { service = constant(10ms) }
mirror box2:9312 { service = constant(5ms) }
mirror box3:9312 { service = constant(30ms) }
mirror box4:9312 { service = constant(3ms) }
workload { arrivals = poisson(150/s)  duration = 20m }
expect { claim = failed < 1% }
SCN
$H "$T/prod.scn" --out "$T/prod" --quiet 2> /dev/null
sed -n '/^Key/,/^$/p' "$T/prod/agent_status.txt" > "$T/status.tsv"
$H init --config "$T/prod.conf" --status "$T/status.tsv" --out "$T/model.scn" > "$T/init.out" 2>&1
check "init exits 0 and says what it wrote" '[ $? -eq 0 ] && grep -q "wrote $T/model.scn" "$T/init.out"'
check "the model reads the layout: sphinx2" 'grep -q "variant = sphinx2" "$T/model.scn"'
check "each mirror says where its numbers come from" '[ $(grep -c "SHOW AGENT STATUS, 15 periods of 60 s" "$T/model.scn") -eq 4 ]'
check "box3's mean comes back: 30 ms" 'grep -A1 "^mirror box3" "$T/model.scn" | grep -q "mean 30.000 ms measured"'
rate=$(sed -n 's/.*poisson(\([0-9.]*\)\/s).*/\1/p' "$T/model.scn")
check "the load comes back: 150/s within 3.5% ($rate)" 'near "$rate" 150 5.25'  # 4 min of counts: +-0.5% sd, plus the run's own randomness
$H "$T/model.scn" --out "$T/model" --quiet 2> /dev/null
check "the model runs as is" '[ $? -eq 0 ] && [ -s "$T/model/summary.csv" ]'
for m in box1:9312 box2:9312 box3:9312 box4:9312; do
  check "$m: predicted share within 1 point ($(share "$T/model" $m) vs $(share "$T/prod" $m))" 'near "$(share "$T/model" $m)" "$(share "$T/prod" $m)" 0.01'
done

# the mysql table form of the same status
awk -F'\t' 'BEGIN {print "+------+------+"} NF == 2 {printf "| %s | %s |\n", $1, $2} END {print "+------+------+"}' "$T/status.tsv" > "$T/status.box"
$H init --config "$T/prod.conf" --status "$T/status.box" > "$T/boxed.scn" 2> /dev/null; brc=$?
check "boxed output: the same scenario" '[ $brc -eq 0 ] && grep -q "^mirror box3" "$T/boxed.scn" && diff <(grep -v "^# Written" "$T/boxed.scn") <(grep -v "^# Written" "$T/model.scn") > /dev/null'

# a sphinxql query log as the workload, under another table name
for i in $(seq 0 99); do printf '/* Sun Apr 28 12:38:%02d.%03d 2024 conn 2 real 0.010 wall 0.010 found 0 */ SELECT * FROM products WHERE MATCH('"'"'q%d'"'"');\n' $((i / 10)) $(( (i % 10) * 100 )) $i; done > "$T/query.log"
$H init --config "$T/prod.conf" --status "$T/status.tsv" --log "$T/query.log" --out "$T/unmapped.scn" > /dev/null 2> "$T/unmapped.err"; rc=$?
check "a log of another table is refused as replay refuses it, both named" '[ $rc -eq 3 ] && [ ! -e "$T/unmapped.scn" ] && grep -q "query.log: none of the log.s tables (products) is one .*prod.conf serves (mydist): expected --table-map" "$T/unmapped.err"'
$H init --config "$T/prod.conf" --status "$T/status.tsv" --log "$T/query.log" --table-map products=nosuch --out "$T/unmapped.scn" > /dev/null 2> "$T/unmapped.err"; rc=$?
check "init --table-map to no table of the config: refused, named" '[ $rc -eq 3 ] && grep -q "table-map products=nosuch: .* serves no distributed table .nosuch." "$T/unmapped.err"'
$H init --config "$T/prod.conf" --status "$T/status.tsv" --log "$T/query.log" --table-map products=mydist --out "$T/logged.scn" > /dev/null 2>&1
check "log: the trace and the table map" 'grep -q "arrivals = trace($T/query.log)" "$T/logged.scn" && grep -q "table_map = products=mydist" "$T/logged.scn"'
$H "$T/logged.scn" --out "$T/logged" --quiet 2> /dev/null
check "log: the 100 searches replayed in simulation" 'grep -q "^queries: 100: answered 100" "$T/logged/report.txt"'

# multi-query batches: 20 over the distributed table as 2.2.11 logs them (3 lines, one connection,
# one time, one agents=() list) and 10 with ' x2' - 30 requests reached the agents, not 80
for i in $(seq 0 29); do ts=$(printf '12:38:%02d.%03d' $((i / 10)) $(( (i % 10) * 100 )))
  if [ $i -lt 20 ]; then for k in 1 2 3; do printf '/* Sun Apr 28 %s 2024 conn %d real 0.010 wall 0.010 found 0 */ SELECT * FROM products WHERE MATCH('"'"'q%d'"'"'); /* agents=(0.009) */\n' $ts $i $k; done
  else for k in 1 2; do printf '/* Sun Apr 28 %s 2024 conn %d real 0.010 wall 0.010 x2 found 0 */ SELECT * FROM products WHERE MATCH('"'"'q%d'"'"');\n' $ts $i $k; done; fi
done > "$T/batch.log"
$H init --config "$T/prod.conf" --status "$T/status.tsv" --log "$T/batch.log" --table-map products=mydist --out "$T/batch.scn" > /dev/null 2> "$T/batch.err"
$H "$T/batch.scn" --out "$T/batch" --quiet 2> /dev/null
check "log: 80 lines of 30 multi-query batches are 30 arrivals, the 50 others said" 'grep -q "^# the query log, replayed: 30 searches" "$T/batch.scn" && grep -q "^# 50 more searches came in multi-query batches" "$T/batch.scn" && grep -q "50 searches came in multi-query batches" "$T/batch.err" && grep -q "^queries: 30: answered 30" "$T/batch/report.txt"'

# the same map from the command line
grep -v "table_map" "$T/logged.scn" > "$T/nomap.scn"
$H "$T/nomap.scn" --table-map products=mydist --out "$T/cli-map" --quiet 2> /dev/null
check "--table-map LOG=CONF on the command line: the 100 searches" 'grep -q "^queries: 100: answered 100" "$T/cli-map/report.txt"'
$H "$T/nomap.scn" --table-map products=nosuch --out "$T/bad-map" --quiet 2> "$T/badmap.err"
check "--table-map to a table the config lacks: exit 2, named" '[ $? -eq 2 ] && grep -q "no distributed table .nosuch." "$T/badmap.err"'

# no status: every mirror a stated guess
$H init --config "$T/prod.conf" > "$T/guess.scn" 2> /dev/null
check "no status: a default that says it is a guess" 'grep -q "^mirror default .*# a guess: 4 host(s) (no --status given)" "$T/guess.scn"'

# bad input
printf 'Key\tValue\nag_0_hostname\tbox1:9312\nnot a row\n' > "$T/bad.tsv"
$H init --config "$T/prod.conf" --status "$T/bad.tsv" --out "$T/bad.scn" 2> "$T/bad.err"
check "a bad status line: exit 3 at file:line, no scenario" '[ $? -eq 3 ] && grep -q "bad.tsv:3:1: expected KEY<TAB>VALUE" "$T/bad.err" && [ ! -e "$T/bad.scn" ]'
k=$(grep -m1 "1periods_succeeded_queries" "$T/status.tsv" | cut -f1); l=$(grep -n -m1 "^$k	" "$T/status.tsv" | cut -d: -f1)
awk -F'\t' -v k="$k" '{print} $1 == k {print k "\t999999"}' "$T/status.tsv" > "$T/dupkey.tsv"
$H init --config "$T/prod.conf" --status "$T/dupkey.tsv" --out "$T/dup.scn" 2> "$T/dup.err"; rc=$?
check "a key given twice with different values: rc 3, both lines named, nothing written" '[ $rc -eq 3 ] && grep -q "dupkey.tsv:$((l + 1)):1: $k: given twice (.999999. here, again after line $l)" "$T/dup.err" && [ ! -e "$T/dup.scn" ]'
cat "$T/status.tsv" "$T/status.tsv" > "$T/twice.tsv"
$H init --config "$T/prod.conf" --status "$T/twice.tsv" --out "$T/twice.scn" > /dev/null 2> "$T/twice.err"; rc=$?
check "the same snapshot pasted twice: refused (summed, it would double every rate)" '[ $rc -eq 3 ] && grep -q "given twice" "$T/twice.err" && [ ! -e "$T/twice.scn" ]'
$H init --status "$T/status.tsv" 2> "$T/noconf.err"
check "no --config: exit 2" '[ $? -eq 2 ] && grep -q "expected --config" "$T/noconf.err"'

# every form of the status: mysql -E (vertical) and Manticore's HTTP JSON give the -B scenario
awk -F'\t' 'NR == 1 {next} {printf "*************************** %d. row ***************************\n  Key: %s\nValue: %s\n", NR - 1, $1, $2}' "$T/status.tsv" > "$T/status.vert"
python3 -c 'import json, sys
rows = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1]) if "\t" in l][1:]
print(json.dumps([{"columns": [{"Key": {"type": "string"}}, {"Value": {"type": "string"}}], "data": [{"Key": k, "Value": v} for k, v in rows], "total": len(rows), "error": "", "warning": ""}]))' "$T/status.tsv" > "$T/status.json"
for form in vert json; do
  $H init --config "$T/prod.conf" --status "$T/status.$form" --out "$T/m-$form.scn" > /dev/null 2>&1; rc=$?
  check "init --status in the $form form: the -B scenario" '[ $rc -eq 0 ] && diff <(grep -v "^# Written" "$T/model.scn") <(grep -v "^# Written" "$T/m-$form.scn") > /dev/null'
done
printf '  Key: ag_0_hostname\n' > "$T/cut.vert"
$H init --config "$T/prod.conf" --status "$T/cut.vert" 2> "$T/cut.err" > /dev/null; rc=$?
check "a vertical status cut after a Key: exit 3 at its line" '[ $rc -eq 3 ] && grep -q "cut.vert:1:1: expected the .Value:. line of this .Key:." "$T/cut.err"'
printf '[{"data":[{"Key":"ag_0_hostname"}]}]' > "$T/bad.json"
$H init --config "$T/prod.conf" --status "$T/bad.json" 2> "$T/bj.err" > /dev/null; rc=$?
check "a JSON row without its Value: exit 3, the row named" '[ $rc -eq 3 ] && grep -q "bad.json: data\[0\]: expected {.Key.: " "$T/bj.err"'
printf '[{"data":[' > "$T/bad2.json"
$H init --config "$T/prod.conf" --status "$T/bad2.json" 2> "$T/bj2.err" > /dev/null; rc=$?
check "JSON cut short: exit 3 at line:column" '[ $rc -eq 3 ] && grep -q "bad2.json:1:10: expected JSON" "$T/bj2.err"'

# relocatable: the paths init writes are relative to the scenario's own folder
mkdir -p "$T/reloc/models"; cp "$T/prod.conf" "$T/reloc/"
(cd "$T/reloc" && $H init --config prod.conf --out models/m.scn > /dev/null 2>&1); rc=$?
check "init names the config relative to the scenario it writes" '[ $rc -eq 0 ] && grep -q "^sim { config = ../prod.conf " "$T/reloc/models/m.scn"'
mv "$T/reloc" "$T/moved"
(cd / && $H "$T/moved/models/m.scn" --out "$T/moved/run" --duration 30s --quiet 2> /dev/null); rc=$?
check "the pair moved elsewhere still runs, from any folder" '[ $rc -eq 0 ] && [ -s "$T/moved/run/summary.csv" ]'

# a series of snapshots: each name must carry its time, no two at the same time; searchd's log
# must say when it started
mkdir -p "$T/snaps"; cp "$T/status.tsv" "$T/snaps/status.1796400000.tsv"; cp "$T/status.tsv" "$T/snaps/latest.tsv"
$H init --config "$T/prod.conf" --status "$T/snaps" --out "$T/ser.scn" > /dev/null 2> "$T/ser.err"; rc=$?
check "a snapshot without a time in its name: exit 3, the file named, no scenario" '[ $rc -eq 3 ] && grep -q "snaps/latest.tsv: expected the time it was taken in its name" "$T/ser.err" && [ ! -e "$T/ser.scn" ]'
mv "$T/snaps/latest.tsv" "$T/snaps/status.2026-12-04T10:00:00.tsv"; cp "$T/status.tsv" "$T/snaps/status.20261204T100000Z.tsv"
$H init --config "$T/prod.conf" --status "$T/snaps" --out "$T/ser.scn" > /dev/null 2> "$T/ser.err"; rc=$?
check "two snapshots at the same time: exit 3, the later named" '[ $rc -eq 3 ] && grep -q "status.20261204T100000Z.tsv: taken at 1796378400.000, not after .*status.2026-12-04T10:00:00.tsv" "$T/ser.err" && [ ! -e "$T/ser.scn" ]'
$H init --config "$S/scenarios/capture/sphinx.conf" --searchd-log "$S/scenarios/capture/searchd.log" > "$T/slv.scn" 2> "$T/slv.err"; rc=$?
check "--searchd-log alone: a 2.2.11 master's log says sphinx2, and why" '[ $rc -eq 0 ] && grep -q "variant = sphinx2" "$T/slv.scn" && grep -q "^hasim init: variant sphinx2: searchd.s log lists its listeners with no protocol and writes no version banner" "$T/slv.err"'
# an idle master (a 2.2.11 status of no search): said as such, never blamed on Manticore
awk -F'\t' 'BEGIN {OFS = "\t"} NR == 1 || $1 ~ /hostname|status_period|stored_periods|references/ {print; next} {print $1, ($1 ~ /lastquery|lastanswer/ ? "-1" : "0")}' "$S/scenarios/capture/status.tsv" > "$T/idle.tsv"
$H init --config "$S/scenarios/capture/sphinx.conf" --status "$T/idle.tsv" > "$T/idle.scn" 2> "$T/idle.err"; rc=$?
check "an idle master's status: said on stderr and beside each mirror, no word of Manticore" '[ $rc -eq 0 ] && grep -q "an idle master: none of its 3 hosts had 10 timed searches" "$T/idle.err" && [ $(grep -c "a guess: the master sent it 0 timed search(es) in the status.s window (an idle master" "$T/idle.scn") -eq 3 ] && ! grep -q "Manticore.s SHOW AGENT STATUS never sums" "$T/idle.scn"'
printf "[Mon Apr 19 20:12:45.625 2021] [12982] starting daemon version '6.3.6 8f2b7cb@240814 release' ...\n[Mon Apr 19 20:12:45.625 2021] [12982] listening on 127.0.0.1:9312 for sphinx and http(s)\n" > "$T/msd.log"
$H init --config "$S/scenarios/capture/sphinx.conf" --searchd-log "$T/msd.log" > "$T/sl2.scn" 2> "$T/sl2.err"; rc=$?
check "--searchd-log of a Manticore master: manticore, its banner quoted" '[ $rc -eq 0 ] && grep -q "variant = manticore" "$T/sl2.scn" && grep -q "variant manticore: searchd.s log says .starting daemon version .6.3.6 8f2b7cb@240814 release." "$T/sl2.err"'
printf '[Fri Dec  4 17:53:08.926 2026] [18392] listening on 127.0.0.1:9312\n[Fri Dec  4 17:53 2026] [18392] accepting connections\n' > "$T/bad_searchd.log"
$H init --config "$T/prod.conf" --log "$T/query.log" --searchd-log "$T/bad_searchd.log" --out "$T/sl.scn" > /dev/null 2> "$T/sl.err"; rc=$?
check "a searchd log whose start line has no time: exit 3 at its line" '[ $rc -eq 3 ] && grep -q "bad_searchd.log:2:1: expected .\[Www Mmm dd hh:mm:ss.mmm yyyy\]. before .accepting connections." "$T/sl.err" && [ ! -e "$T/sl.scn" ]'

# the production evidence that ships (scenarios/capture/, recorded from a real 2.2.11 master by
# its record.sh): the README's init row, verbatim, from the source folder
(cd "$S" && "$H" init --config scenarios/capture/sphinx.conf --status scenarios/capture/series --log scenarios/capture/query.log --searchd-log scenarios/capture/searchd.log --out "$T/cap.scn") > "$T/cap.out" 2>&1; rc=$?
mid=$(sed -n 's/.*agent *= *127.0.0.1:[0-9]*|\(127.0.0.1:[0-9]*\)|.*/\1/p' "$S/scenarios/capture/sphinx.conf")
check "the shipped capture: init finds its incident, the middle mirror down" '[ $rc -eq 0 ] && [ -n "$mid" ] && [ $(grep -c "^fault " "$T/cap.scn") -eq 1 ] && grep -q "^fault $mid { .*kind = down }" "$T/cap.scn"'
# its tail (issue 37): each mirror's own spread from the log's times split into the mirrors,
# the model's p99 and p99.9 within 20% of the log's (the mirrors' own logs are not kept)
"$S/bench/tail.sh" "$B" > "$T/tail.out" 2>&1; rc=$?
check "the shipped capture's tail: $(tr -s " \n" " " < "$T/tail.out")" '[ $rc -eq 0 ] && [ $(grep -c "^p99" "$T/tail.out") -eq 2 ]'
check "the shipped capture: each mirror's spread its own, a good fit" '[ $(grep -c "its own spread: the [0-9]* agents=() times of table d, agent line 1 fitted as the mixture of its 3 mirrors .*a good fit" "$T/cap.scn") -eq 3 ]'
(cd "$S" && "$H" "$T/cap.scn" --out "$T/cap" --quiet); rc=$?
check "... and the model it writes runs" '[ $rc -eq 0 ] && [ -s "$T/cap/summary.csv" ]'
for f in status.table.txt status.tsv status.vertical.txt status.silent.txt; do
  "$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$S/scenarios/capture/$f" --out "$T/cap-$f.scn" > /dev/null 2>&1
  check "the shipped capture's SHOW AGENT STATUS as mysql prints it ($f) is read" '[ $? -eq 0 ] && grep -q "^mirror $mid " "$T/cap-$f.scn"'
done
# inputs that belong together: a status with no host of the config is refused, named; a partial
# match is said on stderr (both ways)
sed 's/127.0.0.1:2[0-9]*/10.9.9.9:9312/g' "$S/scenarios/capture/sphinx.conf" > "$T/other.conf"
"$H" init --config "$T/other.conf" --status "$S/scenarios/capture/status.tsv" --out "$T/other.scn" > /dev/null 2> "$T/other.err"; rc=$?
check "a status of another cluster (no host in common): exit 3, its hosts named, no scenario" '[ $rc -eq 3 ] && grep -q "status.tsv: none of its 3 hosts (127.0.0.1:[0-9]*, .*) is an agent of the config" "$T/other.err" && [ ! -e "$T/other.scn" ]'
"$H" init --config "$T/other.conf" --status "$S/scenarios/capture/series" --out "$T/other2.scn" > /dev/null 2> "$T/other2.err"; rc=$?
check "... a series of another cluster too" '[ $rc -eq 3 ] && grep -q "none of its 3 hosts" "$T/other2.err" && [ ! -e "$T/other2.scn" ]'
first=$(sed -n 's/.*agent *= *\(127.0.0.1:[0-9]*\)|.*/\1/p' "$S/scenarios/capture/sphinx.conf")
sed "s/$first/10.9.9.9:9312/" "$S/scenarios/capture/sphinx.conf" > "$T/part.conf"
"$H" init --config "$T/part.conf" --status "$S/scenarios/capture/status.tsv" --out "$T/part.scn" > /dev/null 2> "$T/part.err"; rc=$?
check "a status sharing some hosts: a model, and what does not match named both ways" '[ $rc -eq 0 ] && grep -q "1 mirror(s) of the config have no status (10.9.9.9:9312)" "$T/part.err" && grep -q "1 host(s) of the status are no agent of the config ($first)" "$T/part.err"'
# the variant from what the evidence says, with the reason on stderr
printf 'Counter\tValue\nversion\t2.2.11-id64-release (95ae9a6)\nag_d_1_1_succeeded_queries\t400\nag_d_1_1_total_query_time\t4520.000\n' > "$T/ss211.tsv"
"$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$T/ss211.tsv" --out "$T/ss211.scn" > /dev/null 2> "$T/ss211.err"
check "a 2.2.11 SHOW STATUS gives variant sphinx2, its version said as the reason" 'grep -q "variant = sphinx2" "$T/ss211.scn" && grep -q "^hasim init: variant sphinx2: SHOW STATUS.s version is .2.2.11-id64-release" "$T/ss211.err"'
check "the shipped 2.2.11 capture: sphinx2, from its status layout" 'grep -q "variant = sphinx2" "$T/cap.scn" && grep -q "variant sphinx2: its SHOW AGENT STATUS has Sphinx 2.2.11.s layout" "$T/cap.out"'
# a series checked for what no master prints, each contradiction named by its files
CS="$S/scenarios/capture/series"; h0=$(sed -n 's/^ag_0_hostname\t//p' "$CS"/$(ls "$CS" | head -1)); h1=$(sed -n 's/^ag_1_hostname\t//p' "$CS"/$(ls "$CS" | head -1))
five=$(ls "$CS" | sed -n 5p); t5=${five#status.}; t5=${t5%.tsv}; later=status.$(awk -v t=$t5 'BEGIN {printf "%.3f", t + 1}').tsv
rm -rf "$T/dup"; cp -r "$CS" "$T/dup"; cp "$T/dup/$five" "$T/dup/$later"
"$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$T/dup" --out "$T/dup.scn" > /dev/null 2> "$T/dup.err"; rc=$?
check "the same snapshot saved again a second later: refused (3), both files named" '[ $rc -eq 3 ] && grep -q "$later: holds the same counters as .*$five, 1.0 s before" "$T/dup.err" && [ ! -e "$T/dup.scn" ]'
rm -rf "$T/twice"; cp -r "$CS" "$T/twice"; sed -i "s/^ag_1_hostname\t.*/ag_1_hostname\t$h0/" "$T/twice/$five"
"$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$T/twice" --out "$T/twice.scn" > /dev/null 2> "$T/twice.err"; rc=$?
check "a host twice in one snapshot: refused (3), the file named" '[ $rc -eq 3 ] && grep -q "$five: host $h0 twice" "$T/twice.err"'
rm -rf "$T/swap"; cp -r "$CS" "$T/swap"; sed -i "s/^ag_0_hostname\t.*/ag_0_hostname\t$h1/; s/^ag_1_hostname\t.*/ag_1_hostname\t$h0/" "$T/swap/$five"
"$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$T/swap" --out "$T/swap.scn" > /dev/null 2> "$T/swap.err"; rc=$?
check "agent rows swapped between snapshots: warned, both files named" 'grep -q "warning: .*/$(ls "$CS" | sed -n 4p) and .*/$five list the same hosts in another order" "$T/swap.err"'
rm -rf "$T/close"; cp -r "$CS" "$T/close"; sed "s/^\(ag_0_1periods_succeeded_queries\t\)/\19/" "$T/close/$five" > "$T/close/$later"
"$H" init --config "$S/scenarios/capture/sphinx.conf" --status "$T/close" --out "$T/close.scn" > /dev/null 2> "$T/close.err"; rc=$?
check "snapshots closer than a karma period: warned, both named" '[ $rc -eq 0 ] && grep -q "warning: .*$five and .*$later are 1.0 s apart, less than a 2 s karma period" "$T/close.err"'
# A rotated log changes the scenario: init pins each input's size and digest; a run refuses the
# changed file (naming it, exit 3, no folder) unless --allow-changed
mkdir -p "$T/pin"; cp "$S/scenarios/capture/sphinx.conf" "$S/scenarios/capture/query.log" "$T/pin/"
(cd "$T/pin" && "$H" init --config sphinx.conf --status "$S/scenarios/capture/status.tsv" --log query.log --out m.scn > /dev/null 2>&1)
check "init pins the config and the log (size, digest, first and last entry)" '[ $(grep -c "^input .* digest = fnv1a64:[0-9a-f]\{16\}" "$T/pin/m.scn") -eq 2 ] && grep -q "^input query.log {.* first = 20[0-9-]*T.* last = " "$T/pin/m.scn"'
"$H" "$T/pin/m.scn" --out "$T/pin/o1" --quiet; rc=$?
check "the unchanged inputs run" '[ $rc -eq 0 ] && [ -s "$T/pin/o1/summary.csv" ]'
tail -n 40 "$T/pin/query.log" >> "$T/pin/query.log"
"$H" "$T/pin/m.scn" --out "$T/pin/o2" --quiet 2> "$T/pin/o2.err"; rc=$?
check "a changed log is refused, named, exit 3, no folder" '[ $rc -eq 3 ] && grep -q "m.scn:[0-9]*:[0-9]*: the trace .*query.log has changed since the scenario recorded it" "$T/pin/o2.err" && [ ! -e "$T/pin/o2" ]'
"$H" sweep "$T/pin/m.scn" --grid "ha_period_karma=1,2" --replications 1 --out "$T/pin/sw" --quiet 2> "$T/pin/sw.err"; rc=$?
check "a sweep refuses it too" '[ $rc -eq 3 ] && grep -q "has changed since" "$T/pin/sw.err"'
"$H" "$T/pin/m.scn" --allow-changed --out "$T/pin/o3" --quiet; rc=$?
check "--allow-changed runs it as it is now" '[ $rc -eq 0 ] && [ -s "$T/pin/o3/summary.csv" ]'
echo "# edited" >> "$T/pin/sphinx.conf"
"$H" "$T/pin/m.scn" --allow-changed --out "$T/pin/o4" --quiet; rc1=$?
sed -i 's/\(^input query.log {.*digest = fnv1a64:\)[0-9a-f]*/\10000000000000000/' "$T/pin/m.scn"
"$H" "$T/pin/m.scn" --out "$T/pin/o5" --quiet 2> "$T/pin/o5.err"; rc=$?
check "an edited config is refused first, named" '[ $rc1 -eq 0 ] && [ $rc -eq 3 ] && grep -q "the config .*sphinx.conf has changed" "$T/pin/o5.err"'
# An ERROR burst in the log (b: 30% of its searches from 40 s to 50 s of 75 s, named by 2.2.11's
# warning=) is a bounded errors(P) fault, not a whole-run rate; the run's failing finding is there
mkdir -p "$T/burst"
printf 'searchd { ha_period_karma = 2  ha_ping_interval = 500 }\nindex d {\n type = distributed\n agent = a:9312|b:9312|c:9312:s\n ha_strategy = noerrors\n}\n' > "$T/burst/p.conf"
awk 'BEGIN { srand(7); t = 0; for (i = 0; t < 75; i++) { t += -log(1 - rand()) / 100; s = int(t); ms = int((t - s) * 1000)
  m = int(rand() * 3); w = (m == 1 && t >= 40 && t < 50 && rand() < 0.3) ? " warning=index d: agent b:9312: remote error: boom" : ""
  printf "/* Sun Apr 28 12:%02d:%02d.%03d 2024 conn %d real 0.006 wall 0.006 found 1 */ SELECT * FROM d WHERE MATCH(%cq%d%c); /* agents=(0.005)%s */\n", 38 + int(s / 60), s % 60, ms, i, 39, i, 39, w } }' > "$T/burst/query.log"
(cd "$T/burst" && "$H" init --config p.conf --log query.log --variant sphinx2 --out m.scn > /dev/null 2>&1); rc=$?
check "an ERROR burst is a bounded errors(P) fault, no whole-run rate" '[ $rc -eq 0 ] && grep -Eq "^fault b:9312 \{ at = (3[89]|4[01])\.[0-9]+s  for = (8|9|1[0-2])\.[0-9]+s  kind = errors\(0\.[23][0-9]*\) \}" "$T/burst/m.scn" && ! grep -q "^    errors = " "$T/burst/m.scn" && [ $(grep -c "^fault " "$T/burst/m.scn") -eq 1 ]'
"$H" "$T/burst/m.scn" --out "$T/burst/run" --quiet; rc=$?
check "its failing finding is the burst's stretch, not the run's" '[ $rc -eq 0 ] && grep -Eq "^failing,.*b:9312,(3[89]|4[01])\.[0-9]+,\"b:9312 fails [0-9.]+% of its [0-9]+ attempts from (3[89]|4[01]) s to (4[89]|5[0-2]) s \(a stretch" "$T/burst/run/findings.csv" && [ $(grep -c "^failing," "$T/burst/run/findings.csv") -eq 1 ]'
echo "cli_init: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
