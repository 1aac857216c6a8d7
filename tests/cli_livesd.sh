#!/usr/bin/env bash
# hareal live --master searchd: a real Sphinx 2.2.11 searchd (Debian sphinxsearch) as the master
# of scenarios/live-demo.scn's three hareal mirrors, box3 stalled 8-16 s and box2 down 18-24 s:
#  1. its shares and failures beside hasim's (--compare-sim): every mirror within 8 points, the
#     failures on the faulted mirrors only, inside their windows; its /metrics mid-run valid
#     for promtool, with what the Grafana dashboard's searchd panels read;
#  2. its SHOW AGENT STATUS saved every karma period; hasim init reads them back and finds both
#     faults, each within one karma period of where the scenario put it;
#  3. searchd stopped by its PID at the end, on SIGTERM (every query has its row), and even
#     when hareal is killed outright;
#  4. a searchd that refuses to start is reported with its log's last lines; what --master
#     cannot take is a usage error;
#  5. --agents: one mirror is a real 2.2.11 agent with data, behind an hareal proxy child that
#     answers half its searches with an ERROR reply from 4 s to 8 s: the real agent serves its
#     share, the errors come back as searchd's warnings naming it, inside the window, at
#     hasim's rate.
set -u
B=$1; S=$2
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
if ! command -v searchd > /dev/null || ! command -v mysql > /dev/null || ! command -v curl > /dev/null; then
  if [ "${CI:-}" = true ]; then echo "cli_livesd: searchd, mysql or curl missing: 0 passed, 1 failed"; exit 1; fi
  echo "cli_livesd: searchd/mysql/curl not installed (.ci/setup installs them): skipped"; exit 77
fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
. "$S/tests/lib.sh"
H="$B/hareal"
P=$(( 17000 + ($$ % 95) * 10 ))  # 17000-17950: below the ephemeral range, apart from other tests
cp "$S/scenarios/live-demo.scn" "$T/demo.scn"  # its own path: the pgreps below are this run's
col() { awk -F, -v m="$2" -v c="$3" '$3 == m { print $c }' "$1"; }
within() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; exit !(a != "" && b != "" && x <= d && x >= -d) }'; }

# 1. the run, and hasim beside it
timeout 120 "$H" live "$T/demo.scn" --master searchd --base-port $P --compare-sim --metrics 127.0.0.1:$((P+4)) --out "$T/r" > "$T/r.out" 2> "$T/r.err" & R=$!; PIDS+=($R)
sleep 12  # past box3's stall (8 s): its failures are counted by now
curl -sf "http://127.0.0.1:$((P+4))/metrics" > "$T/m.txt"; crc=$?
wait $R; rc=$?
check "live --master searchd exits 0" '[ $rc -eq 0 ] || { cat "$T/r.err"; false; }'
check "searchd named, on the port after the mirrors" 'grep -q "searchd (Sphinx 2.2.11[^)]*)) is the master, SphinxQL on 127.0.0.1:$((P+3))" "$T/r.err"'
check "its config: the scenario's table, agents at the mirrors' pinned ports, its settings" 'grep -q "agent = 127.0.0.1:$P:shard1|127.0.0.1:$((P+1)):shard1|127.0.0.1:$((P+2)):shard1" "$T/r/searchd/searchd.conf" && grep -q "ha_strategy = nodeads" "$T/r/searchd/searchd.conf" && grep -q "ha_ping_interval = 500" "$T/r/searchd/searchd.conf" && grep -q "agent_query_timeout = 500" "$T/r/searchd/searchd.conf"'
n=$(($(wc -l < "$T/r/queries.csv") - 1))
check "every query has its row (200/s for 30 s: $n)" '[ $n -ge 5500 ] && [ $n -le 6500 ] && grep -q "^queries: $n sent" "$T/r.out"'
check "compared with hasim's sphinx2 variant" 'grep -q "variant compared: sphinx2" "$T/r.out" && [ "$(awk -F, "NR > 1" "$T/r/compare.csv" | wc -l)" -eq 3 ]'
# 8 points: searchd and loopback add ~0.3 ms to every mirror's time, which moves sphinx2's
# 1 - t/S weights against box1 (2 ms) by 2-5 points, more on a loaded machine (quiet: 2.6)
worst=0
for m in box1:9312 box2:9312 box3:9312; do
  re=$(col "$T/r/compare.csv" $m 4); si=$(col "$T/r/compare.csv" $m 5)
  check "$m: searchd's share $re vs hasim's $si (within 8 points)" 'within "$re" "$si" 0.08'
  worst=$(awk -v a="$re" -v b="$si" -v w="$worst" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d > w ? d : w) }')
done
verdict=$(awk -v w="$worst" 'BEGIN { print (w <= 0.05 ? "agreement" : "DISAGREEMENT") }')
# the program rounds its unrounded difference; compare.csv's six decimals can land on the other
# side of a half (0.0345 printed 3.4): the words must match the figures to within that rounding
said=$(sed -n "s/^$verdict: the largest share difference is \([0-9.]*\) points.*/\1/p" "$T/r.out")
check "the verdict in words matches the figures ($verdict, $worst; said ${said:-nothing})" '[ -n "$said" ] && awk -v s="$said" -v w="$worst" "BEGIN { d = s - 100 * w; exit !(d <= 0.051 && d >= -0.051) }"'
check "box1 never failed, in searchd or in hasim" '[ "$(col "$T/r/compare.csv" box1:9312 10)" = 0 ] && [ "$(col "$T/r/compare.csv" box1:9312 11)" = 0 ]'
check "box3 (stalled) failed in both" '[ "$(col "$T/r/compare.csv" box3:9312 10)" -gt 0 ] && [ "$(col "$T/r/compare.csv" box3:9312 11)" -gt 0 ]'
check "each mirror's share said in words, in the report too, as summary.csv has it" 'grep -q "^dist line 1 (what the mirrors received" "$T/r/report.txt" && s3=$(awk -F, "\$3 == \"box3:9312\" { printf \"%.1f\", 100 * \$5 }" "$T/r/summary.csv") && grep -q "^  box3:9312  *$s3 %  *[0-9]* attempts  *[1-9][0-9]* failed" "$T/r.out"'
check "searchd blamed box3 and box2 by name" 'grep -q "^searchd blamed box3:9312\|^ *box3:9312: [0-9]* query failures, [1-9]" "$T/r.out" && grep -q "box2:9312: [0-9]* query failures, [0-9]* failed connects" "$T/r.out"'
# failures only inside the fault windows (a query sent before the end, answered by its timeout)
check "failures only while box3 stalls (8-16 s) or box2 is down (18-24 s)" 'awk -F, "NR > 1 && \$5 != \"ok\" { t = \$3; if (!((t >= 7.9 && t < 16.6) || (t >= 17.9 && t < 24.6))) bad++ } END { exit bad > 0 }" "$T/r/queries.csv"'
check "the failures carry searchd's own words" 'grep -q ",failed,[0-9.]*,index dist: agent 127.0.0.1:$((P+2)): connect() timed out" "$T/r/queries.csv"'

check "/metrics while it runs: searchd's outcomes and the blamed agent" '[ $crc -eq 0 ] && grep -q "^hakarma_searchd_queries_total{outcome=\"ok\"} [1-9]" "$T/m.txt" && grep -q "^hakarma_searchd_agent_failures_total{mirror=\"box3:9312\",phase=\"connect\"} [1-9]" "$T/m.txt"'
if command -v promtool > /dev/null || [ "${CI:-}" = true ]; then
  promtool check metrics < "$T/m.txt" > "$T/lint.txt" 2>&1; prc=$?
  check "/metrics passes promtool check metrics" '[ $prc -eq 0 ] && [ ! -s "$T/lint.txt" ] || { cat "$T/lint.txt"; false; }'
fi

dash=$(grep -o "hakarma_searchd_[a-z_]*" "$S/plots/grafana/hakarma-rehearsal.json" | sort -u)
unserved=$(for n in $dash; do grep -q "^$n" "$T/m.txt" || echo "$n"; done)
check "the Grafana dashboard's searchd panels read metrics served here ($(echo $dash | wc -w) names; unserved: ${unserved:-none})" '[ -n "$dash" ] && [ -z "$unserved" ]'

# 2. the snapshots, read back by hasim init
ns=$(ls "$T/r/status" | grep -c "^status\.[0-9]*\.[0-9]*\.tsv$")
check "SHOW AGENT STATUS saved every karma period and at the end ($ns files)" '[ $ns -ge 6 ] && [ $ns -le 7 ] && grep -q "^ag_0_hostname	127.0.0.1:$P$" "$T/r/status/"*.tsv'
"$B/hasim" init --config "$T/r/searchd/searchd.conf" --status "$T/r/status" --log "$T/r/searchd/query.log" \
  --searchd-log "$T/r/searchd/searchd.log" --out "$T/init.scn" > "$T/init.out" 2>&1; irc=$?
check "hasim init reads the run's status series and log" '[ $irc -eq 0 ] || { cat "$T/init.out"; false; }'
at() { awk -v h="$1" -v k="$2" '$1 == "fault" && $2 == h { for (i = 3; i < NF; i++) if ($i == k) { v = $(i + 2); sub(/s$/, "", v); print v } }' "$T/init.scn"; }
check "init finds box3's stall at 8 s for 8 s (within one 5 s period)" 'within "$(at 127.0.0.1:$((P+2)) at)" 8 5 && within "$(at 127.0.0.1:$((P+2)) for)" 8 5'
check "init finds box2 down at 18 s for 6 s (within one 5 s period)" 'grep -q "fault 127.0.0.1:$((P+1)) .*kind = down" "$T/init.scn" && within "$(at 127.0.0.1:$((P+1)) at)" 18 5 && within "$(at 127.0.0.1:$((P+1)) for)" 6 5'

# 3. stopped by PID: at the end, on SIGTERM, and with hareal killed outright
check "searchd stopped at the end (its log says so), no process left" 'grep -q "shutdown complete" "$T/r/searchd/searchd.log" && ! pgrep -f "searchd --config $T/r/" > /dev/null && ! pgrep -f -- "--scenario $T/demo.scn" > /dev/null'
"$H" live "$T/demo.scn" --master searchd --out "$T/t" --quiet > /dev/null 2> "$T/t.err" & L=$!; PIDS+=($L)
sleep 4; kill -TERM $L; wait $L; trc=$?
nt=$(($(wc -l < "$T/t/queries.csv") - 1))
check "SIGTERM: exit 143, every query it sent has its row ($nt), the report written" '[ $trc -eq 143 ] && [ $nt -ge 500 ] && grep -q "^queries: $nt sent" "$T/t/report.txt"'
check "SIGTERM: searchd and the mirrors stopped" '! pgrep -f "searchd --config $T/t/" > /dev/null && ! pgrep -f -- "--scenario $T/demo.scn" > /dev/null'
"$H" live "$T/demo.scn" --master searchd --out "$T/k" --quiet > /dev/null 2>&1 & L=$!; PIDS+=($L)
started=0
for _ in $(seq 100); do pgrep -f "searchd --config $T/k/" > /dev/null && { started=1; break; }; sleep 0.05; done
sleep 1; kill -9 $L; wait $L 2>/dev/null
for _ in $(seq 100); do pgrep -f "searchd --config $T/k/" > /dev/null || break; sleep 0.05; done
check "kill -9 of hareal: searchd (seen running before) goes too" '[ $started -eq 1 ] && ! pgrep -f "searchd --config $T/k/" > /dev/null'

# 3b. a trace through searchd: its timing, its text (quotes escaped), an unknown table, a signal
awk 'BEGIN { print "t_s,table,query"; for (i = 0; i < 800; i++) printf "%.4f,%s,%s\n", i * 0.01, (i == 5 ? "nosuch" : "dist"), (i == 7 ? "it'"'"'s \\\\ here" : "q" i) }' > "$T/tr.csv"
"$H" live "$T/demo.scn" --master searchd --trace "$T/tr.csv" --out "$T/tr" --quiet > /dev/null 2> "$T/tr.err" & L=$!; PIDS+=($L)
sleep 4; kill -TERM $L; wait $L; trc=$?
check "--trace: SIGTERM mid-trace, exit 143, every one of its 800 queries has a row" '[ $trc -eq 143 ] && [ $(($(wc -l < "$T/tr/queries.csv") - 1)) -eq 800 ] && grep -q ",not_sent,0.000,the run was stopped before it was due$" "$T/tr/queries.csv"'
cat > "$T/want.txt" <<'W'
MATCH('it\'s \\\\ here')
W
check "--trace: a table the config lacks has its row, a quote and a backslash reach searchd escaped" 'grep -q "^5,0.050000,[0-9.]*,nosuch,unknown_table," "$T/tr/queries.csv" && grep -q "^7,.*,dist,ok," "$T/tr/queries.csv" && grep -qF -f "$T/want.txt" "$T/tr/searchd/query.log"'
printf 't_s,table,query\n0.1,dist,a\n0.2,dist,b\nnot-a-time,dist,c\n' > "$T/bad.csv"
timeout 60 "$H" live "$T/demo.scn" --master searchd --trace "$T/bad.csv" --out "$T/bad" > /dev/null 2> "$T/bad.err"; brc=$?
check "--trace malformed at line 4: exit 3, file:line said, nothing left looking complete" '[ $brc -eq 3 ] && grep -q "bad.csv:4" "$T/bad.err" && [ ! -e "$T/bad/queries.csv" ] && ! pgrep -f "searchd --config $T/bad/" > /dev/null'

# 4. refusals
cat > "$T/fake-searchd" <<'SH'
#!/bin/sh
echo "Sphinx 2.2.11-id64-release (fake)"
[ "$1" = --help ] && exit 0
echo "FATAL: no license to listen (this fake refuses)"; exit 1
SH
chmod +x "$T/fake-searchd"
timeout 60 "$H" live "$T/demo.scn" --master "searchd=$T/fake-searchd" --out "$T/f" > /dev/null 2> "$T/f.err"; frc=$?
check "a searchd that exits at start: exit 1, said with its output's last lines" '[ $frc -eq 1 ] && grep -q "exited at start instead of listening" "$T/f.err" && grep -q "FATAL: no license to listen" "$T/f.err" && ! pgrep -f -- "--scenario $T/demo.scn" > /dev/null'
# a Manticore says its banner at --version only (its --help is the usage): told apart, its
# config written without 2.2's workers key, its refusal reported
cat > "$T/fake-manticore" <<'SH'
#!/bin/sh
case "$1" in --help) echo "Usage: searchd [OPTIONS]"; exit 0;; --version) echo "Manticore 6.3.6 1811a9efb@24052209"; exit 0;; esac
[ "$1" = --config ] && echo "fake: $(grep -c workers "$2") workers lines, $(grep -c "ha_strategy = nodeads" "$2") nodeads"
echo "FATAL: this fake Manticore refuses"; exit 1
SH
chmod +x "$T/fake-manticore"
timeout 60 "$H" live "$T/demo.scn" --master "searchd=$T/fake-manticore" --out "$T/fm" > /dev/null 2> "$T/fm.err"; fmrc=$?
check "a Manticore told by its --version: its config without workers, its refusal said" '[ $fmrc -eq 1 ] && grep -q "(Manticore 6.3.6 1811a9efb@24052209) exited at start" "$T/fm.err" && grep -q "fake: 0 workers lines, 1 nodeads" "$T/fm.err" && grep -q "this fake Manticore refuses" "$T/fm.err"'
"$H" live "$T/demo.scn" --master searchd=/nonexistent/searchd --out "$T/n" > /dev/null 2> "$T/n.err"; nrc=$?
check "a searchd that is not there: exit 2, named" '[ $nrc -eq 2 ] && grep -q "/nonexistent/searchd: cannot run it" "$T/n.err"'
"$H" live "$T/demo.scn" --master searchd=/bin/true --out "$T/n" > /dev/null 2> "$T/n.err"; nrc=$?
check "a binary that is not searchd: exit 2" '[ $nrc -eq 2 ] && grep -q "neither its --version nor its --help names Sphinx or Manticore" "$T/n.err"'
"$H" live "$T/demo.scn" --master mysql --out "$T/n" > /dev/null 2> "$T/n.err"; nrc=$?
check "--master mysql: exit 2, what it expects said" '[ $nrc -eq 2 ] && grep -q "expected searchd or searchd=PATH" "$T/n.err"'
"$H" live "$T/demo.scn" --master searchd --plot --out "$T/n" > /dev/null 2> "$T/n.err"; nrc=$?
check "--master searchd --plot: exit 2, why said" '[ $nrc -eq 2 ] && grep -q "\-\-plot is not for --master searchd" "$T/n.err"'
"$H" live "$T/demo.scn" --master searchd --strategy peak-ewma --out "$T/e" > /dev/null 2> "$T/e.err"; erc=$?
check "a hakarma extension strategy cannot be given to searchd: refused, nothing left running" '[ $erc -ne 0 ] && grep -q "is a hakarma extension, not searchd" "$T/e.err" && ! pgrep -f "searchd --config $T/e/" > /dev/null && ! pgrep -f -- "--scenario $T/demo.scn" > /dev/null'

# 5. one mirror is a real agent
mkdir -p "$T/agent"
sd_agent "$T/agent" shard1 $((P+5)) $((P+6)) > "$T/agent/agent.conf"
searchd --config "$T/agent/agent.conf" --nodetach > "$T/agent/out" 2>&1 & AG=$!; PIDS+=($AG)
wait_port $((P+6))
mysql -h127.0.0.1 -P$((P+6)) -e "INSERT INTO shard1 (id, title, gid) VALUES (1,'hakarma one',1),(2,'hakarma two',2)" > /dev/null 2>&1
cat > "$T/ag.scn" <<'SCN'
searchd { ha_period_karma = 2  ha_ping_interval = 500  agent_query_timeout = 500  agent_connect_timeout = 200 }
table dist {
    type        = distributed
    agent       = box1:9312|box2:9312:shard1
    ha_strategy = roundrobin
}
mirror default { service = lognormal(median=2ms, sigma=0.3)  threads = 4 }
workload { arrivals = poisson(100/s)  duration = 12s }
fault box2:9312 { at = 4s  for = 4s  kind = errors(0.5) }
sim { seed = 1 }
SCN
timeout 60 "$H" live "$T/ag.scn" --master searchd --agents box2:9312=127.0.0.1:$((P+5)) --compare-sim --out "$T/a" > "$T/a.out" 2> "$T/a.err"; arc=$?
check "--agents: the run exits 0, box2 a proxy to the real agent, its control API said" '[ $arc -eq 0 ] && grep -q "box2:9312=127.0.0.1:[0-9]* (proxy to 127.0.0.1:$((P+5)), API http://127.0.0.1:[0-9]*)" "$T/a.err" || { cat "$T/a.err"; false; }'
served=$(grep -c "hakarma" "$T/agent/query.log" 2>/dev/null); logged=$(grep -c ",ok$" "$T/a/mirrors/mirror-1.0.csv" 2>/dev/null)
check "--agents: the real agent answered searches ($served in its query log; the proxy passed $logged)" '[ "${served:-0}" -ge 400 ] && [ "$served" -eq "$logged" ]'
for m in box1:9312 box2:9312; do
  re=$(col "$T/a/compare.csv" $m 4); si=$(col "$T/a/compare.csv" $m 5)
  check "--agents, roundrobin: $m's share $re vs hasim's $si (within 5 points)" 'within "$re" "$si" 0.05'
done
fr=$(col "$T/a/compare.csv" box2:9312 10); fs=$(col "$T/a/compare.csv" box2:9312 11)
check "--agents: box2's ERROR replies, $fr under searchd vs $fs in hasim (within half)" '[ "${fr:-0}" -gt 0 ] && [ "${fs:-0}" -gt 0 ] && awk -v a="$fr" -v b="$fs" "BEGIN { exit !(a >= b / 2 && a <= b * 3 / 2) }"'
check "--agents: each error is searchd's warning naming the proxy, inside 4-8 s" 'grep -q ",failed,[0-9.]*,index dist: agent 127.0.0.1:[0-9]*: remote error: hakarma proxy: injected error" "$T/a/queries.csv" && awk -F, "NR > 1 && \$5 != \"ok\" && (\$3 < 3.9 || \$3 > 8.6) { bad++ } END { exit bad > 0 }" "$T/a/queries.csv"'
timeout 60 "$H" live "$T/ag.scn" --agents box2:9312=127.0.0.1:$((P+5)) --compare-sim --out "$T/h" > "$T/h.out" 2>&1
fh=$(col "$T/h/compare.csv" box2:9312 10)
check "--agents under hakarma's own master: the proxy's schedule runs too ($fh failed vs $fs)" '[ "${fh:-0}" -gt 0 ] && awk -v a="$fh" -v b="$fs" "BEGIN { exit !(a >= b / 2 && a <= b * 3 / 2) }"'
check "--agents: the proxy child is gone, the operator's agent still runs" '! pgrep -f -- "--scenario $T/ag.scn" > /dev/null && kill -0 $AG'
"$H" live "$T/ag.scn" --agents box9:9312=127.0.0.1:1 --out "$T/n" > /dev/null 2> "$T/n.err"; nrc=$?
check "--agents naming no mirror of the scenario: exit 2, said" '[ $nrc -eq 2 ] && grep -q "box9:9312=127.0.0.1:1.*it names no such mirror" "$T/n.err"'

echo "cli_livesd: $pass passed, $fail failed"
[ $fail -eq 0 ]
