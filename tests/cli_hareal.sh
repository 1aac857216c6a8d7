#!/usr/bin/env bash
# Integration: hareal mirror + hareal replay + hareal live on loopback, no searchd.
# Each mirror fault lands in the right SHOW AGENT STATUS counter, every trace
# query gets exactly one row (also after Ctrl-C), finished folders are not
# overwritten without --force, a live cluster runs and cleans up after itself.
set -u
B=$1; S=$2
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
H="$B/hareal"
BASE=$(( 23000 + ($$ % 50) * 40 ))  # 23000-25000: below the ephemeral range, apart from other tests

mirror() { "$H" mirror --listen 127.0.0.1:$1 --quiet "${@:2}" & PIDS+=($!); }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
conf() { # conf FILE PORT... : one distributed table over the given mirror ports
  local f=$1; shift; local a=""
  for p in "$@"; do a="$a|127.0.0.1:$p"; done
  printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0  agent_connect_timeout = 300  agent_query_timeout = 400 }\ntable d {\n type = distributed\n agent = %s:shard1\n ha_strategy = random\n}\n' "${a#|}" > "$f"
}
trace() { { echo "t_s,table,query"; for i in $(seq 0 $(($2-1))); do printf '%d.%03d,d,q%d\n' $((i/100)) $(( (i%100)*10 )) $i; done; } > "$1"; }
status_of() { grep -E "^ag_0_15periods_$2	" "$1/agent_status.txt" | cut -f2; }

trace "$T/t20.csv" 20
# fault -> counter (Sphinx 2.2.11 layout keeps the counters in their own rows)
i=0
# (a close mid-reply is network_errors in 2.2.11, unexpected_closings in Manticore)
for spec in "down:connect_failures:sphinx2" "partition:connect_timeouts:sphinx2" \
            "partition:query_timeouts:manticore" "stuck:query_timeouts:sphinx2" \
            "stall:connect_timeouts:sphinx2" "stall:query_timeouts:manticore" \
            "badversion:wrong_replies:sphinx2" "garbage:wrong_replies:sphinx2" \
            "close:network_errors:sphinx2" "close:unexpected_closings:manticore" \
            "reset:network_errors:sphinx2" "warning:warnings:sphinx2" \
            "acceptclose:unexpected_closings:sphinx2" "drip:query_timeouts:sphinx2" \
            "none:succeeded_queries:sphinx2"; do
  f=${spec%%:*}; rest=${spec#*:}; c=${rest%%:*}; v=${rest#*:}; p=$((BASE + i)); i=$((i+1))
  if [ "$f" != down ]; then mirror $p --fault "$f"; wait_port $p; fi
  conf "$T/$f.conf" $p
  f=$f-$v
  timeout 30 "$H" replay --config "$T/${f%-*}.conf" --trace "$T/t20.csv" --out "$T/$f" --variant $v > /dev/null 2>&1
  check "$f: replay exits 0" '[ $? -eq 0 ]'
  if [ "$v" = sphinx2 ]; then  # Manticore's layout misprints some counters: use the rows there
    check "$f: 20 queries counted as $c" '[ "$(status_of "$T/$f" "$c")" = 20 ]'
  else
    st=${c%s}; st=${st/closing/close}
    check "$f: 20 rows say $st" '[ $(grep -c ",$st," "$T/$f/queries.csv") -eq 20 ]'
  fi
  check "$f: 20 rows" '[ $(($(wc -l < "$T/$f/queries.csv") - 1)) -eq 20 ]'
done
check "a malformed reply names the peer and byte offset" 'grep -q "wrong replies: 20; the first: 127.0.0.1:[0-9]*: byte 0 of the reply: expected the server hello 1" "$T/badversion-sphinx2/report.txt"'
p=$((BASE + 21)); mirror $p --fault retry; wait_port $p; conf "$T/retry.conf" $p
timeout 30 "$H" replay --config "$T/retry.conf" --trace "$T/t20.csv" --out "$T/retry" --variant sphinx2 > /dev/null 2>&1
check "retry: RETRY replies are remote_error rows" '[ $(grep -c ",remote_error," "$T/retry/queries.csv") -eq 20 ]'
# the mirror's --log is CSV (libcsv): a query with a comma and quotes reads back whole
p=$((BASE + 39)); mirror $p --log "$T/qlog.csv"; wait_port $p; conf "$T/qlog.conf" $p
printf 't_s,table,query\n0,d,"a, ""b"" c"\n0.01,d,plain\n' > "$T/qtrace.csv"
timeout 30 "$H" replay --config "$T/qlog.conf" --trace "$T/qtrace.csv" --out "$T/qlog" > /dev/null 2>&1
check "mirror --log: quoted fields read back whole by a CSV reader" '[ "$(python3 -c "import csv,sys; print(\"|\".join(r[3] for r in csv.reader(open(sys.argv[1]))))" "$T/qlog.csv")" = "query|a, \"b\" c|plain" ]'
p=$((BASE + 20)); mirror $p --fault "errors(1)"; wait_port $p; conf "$T/err.conf" $p
timeout 30 "$H" replay --config "$T/err.conf" --trace "$T/t20.csv" --out "$T/err" --variant sphinx2 > /dev/null 2>&1
check "errors: rows say remote_error" '[ $(grep -c ",remote_error," "$T/err/queries.csv") -eq 20 ]'
timeout 30 "$H" replay --config "$T/err.conf" --trace "$T/t20.csv" --out "$T/err-gate" --variant sphinx2 --fail-on failing,locked > /dev/null 2>&1; rc=$?
check "replay --fail-on failing: exit 4 on a mirror failing every query, files complete" '[ $rc -eq 4 ] && [ -s "$T/err-gate/report.txt" ] && grep -q "\"kind\": \"failing\"" "$T/err-gate/findings.json"'
timeout 30 "$H" replay --config "$T/err.conf" --trace "$T/t20.csv" --out "$T/err-gate2" --variant sphinx2 --fail-on starved > /dev/null 2>&1; rc=$?
check "replay --fail-on a kind not raised: exit 0" '[ $rc -eq 0 ]'
check "errors: no counter moved" '[ "$(status_of "$T/err" succeeded_queries)" = 0 ] && [ "$(grep -E "^ag_0_errorsarow" "$T/err/agent_status.txt" | cut -f2)" = 0 ]'

# failover with Manticore's retries: one dead mirror, one alive, retry_count 1 x 2 mirrors
p1=$((BASE + 30)); p2=$((BASE + 31)); mirror $p2 --service "constant(1ms)"; wait_port $p2
conf "$T/fo.conf" $p1 $p2
sed -i 's/agent_query_timeout = 400/agent_query_timeout = 400  agent_retry_count = 1  agent_retry_delay = 0/' "$T/fo.conf"
trace "$T/t200.csv" 200
timeout 30 "$H" replay --config "$T/fo.conf" --trace "$T/t200.csv" --out "$T/fo" > "$T/fo.out" 2>&1
ok=$(grep -c ",ok," "$T/fo/queries.csv")
# all 3 attempts on the dead mirror: 1/8 fail; retries that stayed on it would fail 1/2
check "failover: retries re-pick ($ok/200 ok, about 175 expected)" '[ "$ok" -ge 160 ]'
check "failover: retried rows show attempts > 1" 'grep -q ",127.0.0.1:$p2,[23],ok," "$T/fo/queries.csv"'
"$H" replay --config "$T/fo.conf" --trace "$T/t200.csv" --out "$T/fo" > /dev/null 2> "$T/ow.err"; orc=$?
check "refuses to overwrite a finished run (exit 2, says why)" '[ $orc -eq 2 ] && grep -q "holds a finished run" "$T/ow.err"'
check "files are complete: no .part" '[ -s "$T/fo/summary.csv" ] && [ -z "$(find "$T" -name "*.part")" ]'

# Ctrl-C half-way: every trace query still has exactly one row
trace "$T/t500.csv" 500
"$H" replay --config "$T/fo.conf" --trace "$T/t500.csv" --out "$T/int" > /dev/null 2>&1 & rp=$!
sleep 1.5; kill -INT $rp; wait $rp
check "Ctrl-C: exits 130 (rows written)" '[ $? -eq 130 ]'
n=$(awk -F, 'NR>1{print $1}' "$T/int/queries.csv" | sort -u | wc -l)
check "Ctrl-C: 500 ids, one row each" '[ "$n" -eq 500 ] && [ $(($(wc -l < "$T/int/queries.csv") - 1)) -eq 500 ]'
check "Ctrl-C: some not_sent" 'grep -q ",not_sent," "$T/int/queries.csv"'
check "Ctrl-C: summary written" '[ -s "$T/int/summary.csv" ] && [ -s "$T/int/agent_status.txt" ]'

# bad input
printf 't_s,table,query\n0.1,d,a\nsoon,d,b\n' > "$T/bad.csv"
"$H" replay --config "$T/fo.conf" --trace "$T/bad.csv" --out "$T/bad" > /dev/null 2> "$T/bad.err"; brc=$?
check "bad trace exits 3 with file:line:col" '[ $brc -eq 3 ] && grep -q "bad.csv:3:1: t_s: expected decimal seconds" "$T/bad.err"'
check "bad trace leaves no finished-looking files" '[ $brc -eq 3 ] && [ ! -e "$T/bad/queries.csv" ]'
printf 'table d { type = distributed\n agent = 127.0.0.1:1:x [retry=3]\n}\n' > "$T/badc.conf"
"$H" replay --config "$T/badc.conf" --trace "$T/t20.csv" --out "$T/badc" > /dev/null 2> "$T/badc.err"
check "bad config exits 3 with position" '[ $? -eq 3 ] && grep -q "badc.conf:2:25:" "$T/badc.err"'

# a searchd query log (sphinxql format) replays
printf '/* Sun Apr 28 12:38:02.808 2024 conn 2 (127.0.0.1:53228) real 0.010 wall 0.010 found 0 */ SELECT * FROM d WHERE MATCH('"'"'hello'"'"'); /* agents=(0.083) */\n/* Sun Apr 28 12:38:02.908 2024 conn 2 real 0.000 wall 0.000 found 0 */ SHOW META;\n/* Sun Apr 28 12:38:03.108 2024 conn 3 real 0.005 wall 0.005 found 1 */ SELECT id FROM d WHERE MATCH('"'"'it\\'"'"'s'"'"') LIMIT 5;\n' > "$T/q.log"
"$H" replay --config "$T/fo.conf" --trace "$T/q.log" --out "$T/ql" > /dev/null 2> "$T/ql.err"
check "sphinxql log: 2 searches replayed" '[ $(($(wc -l < "$T/ql/queries.csv") - 1)) -eq 2 ]'
check "sphinxql log: the note says what it lacks" 'grep -q "note: sphinxql log" "$T/ql.err"'
# the variant: said with its reason, taken from the real master's evidence when given
check "replay says the variant it runs and why" 'grep -q "^hareal replay: variant manticore: the default: nothing given says" "$T/ql.err"'
"$H" replay --config "$T/fo.conf" --trace "$T/q.log" --out "$T/qv1" --status "$S/scenarios/capture/status.tsv" > /dev/null 2> "$T/qv1.err"
check "replay --status of a 2.2.11 master: sphinx2, from its layout" '[ $? -eq 0 ] && grep -q "^hareal replay: variant sphinx2: its SHOW AGENT STATUS has Sphinx 2.2.11.s layout" "$T/qv1.err" && grep -q ": variant sphinx2, " "$T/qv1/report.txt"'
"$H" replay --config "$T/fo.conf" --trace "$T/q.log" --out "$T/qv2" --searchd-log "$S/scenarios/capture/searchd.log" > /dev/null 2> "$T/qv2.err"
check "replay --searchd-log of a 2.2.11 master: sphinx2, from its start lines" '[ $? -eq 0 ] && grep -q "^hareal replay: variant sphinx2: searchd.s log lists its listeners with no protocol" "$T/qv2.err"'
printf "[Mon Apr 19 20:12:45.625 2021] [12982] starting daemon version '3.5.5 ff716353@210419 release' ...\n" > "$T/msd.log"
"$H" replay --config "$T/fo.conf" --trace "$T/q.log" --out "$T/qv3" --searchd-log "$T/msd.log" --status "$T/nonexistent" > /dev/null 2> "$T/qv3.err"
check "replay: an unreadable --status is refused, named" '[ $? -eq 3 ] && grep -q "nonexistent" "$T/qv3.err"'
"$H" replay --config "$T/fo.conf" --trace "$T/q.log" --out "$T/qv4" --searchd-log "$T/msd.log" > /dev/null 2> "$T/qv4.err"
check "replay --searchd-log of a Manticore master: manticore, its banner quoted" '[ $? -eq 0 ] && grep -q "variant manticore: searchd.s log says \"starting daemon version .3.5.5 ff716353@210419 release.\"" "$T/qv4.err"'

# live: a scenario's cluster, faults for real, children cleaned up, compare with the simulator
cat > "$T/live.scn" <<'SCN'
searchd { ha_period_karma = 2s  ha_ping_interval = 300  agent_query_timeout = 300 }
table dist { type = distributed
  agent = a:9312|b:9312:shard1
  ha_strategy = nodeads
}
mirror default { service = constant(2ms) threads = 2 }
workload { arrivals = poisson(100/s) duration = 4s }
fault b:9312 { at = 1s for = 1500ms kind = down }
SCN
# each mirror child draws from its own stream of the seed, as hasim's mirrors do: two mirrors of
# one service distribution answer the i-th query in different times (the same --seed for every
# child made half of them equal to the tenth of a millisecond)
cat > "$T/streams.scn" <<'SCN'
searchd { ha_period_karma = 2s  ha_ping_interval = 0 }
table dist { type = distributed
  agent = a:9312|b:9312:shard1
  ha_strategy = roundrobin
}
mirror default { service = lognormal(median=5ms, sigma=0.5) threads = 4 }
workload { arrivals = poisson(50/s) duration = 2s }
SCN
timeout 60 "$H" live "$T/streams.scn" --out "$T/streams" --quiet 2> /dev/null
same=$(python3 - "$T/streams/queries.csv" <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
a, b = ([float(x['latency_ms']) for x in r if x['mirror'] == m and x['status'] == 'ok'] for m in ('a:9312', 'b:9312'))
n = min(len(a), len(b), 40)
print(sum(abs(a[i] - b[i]) < 0.3 for i in range(n)) if n >= 30 else 99)
PY
)
check "live: each mirror child its own random stream ($same of 40 answers alike)" '[ "$same" -lt 10 ]'
timeout 60 "$H" live "$T/live.scn" --out "$T/live" --compare-sim --plot > "$T/live.out" 2>&1; lrc=$?
# --compare-sim judges shares, failures, p50 and p99, each within a bound from the sample size, and
# writes its verdict down: a real agent 10x slower than the scenario says disagrees on p50 and p99
SP=$(( 29700 + ($$ % 100) ))
"$H" mirror --listen 127.0.0.1:$SP --service 'constant(20ms)' --quiet & PIDS+=($!)
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$SP) 2>/dev/null && break; sleep 0.05; done
timeout 60 "$H" live "$T/streams.scn" --agents b:9312=127.0.0.1:$SP --out "$T/dis" --compare-sim --quiet 2> /dev/null
check "compare-sim: a 10x slower real agent is a DISAGREEMENT on its p50, named, in report.txt" 'grep -q "^DISAGREEMENT (--compare-sim.*p50.* differ beyond their bounds" "$T/dis/report.txt" && grep -q "^  p50 differs on [12] mirror(s): .*dist,1,b:9312 (simulated" "$T/dis/report.txt"'
check "compare.csv: each figure's bound and verdict (b's p50 no, its share yes)" 'awk -F, "\$3 == \"b:9312\" {print \$15, \$22}" "$T/dis/compare.csv" | grep -qx "yes no"'
check "the live run's verdict and its bounds in report.txt and index.html (the latencies vary with the machine's load)" 'grep -Eq "^(DIS)?AGREEMENT \(--compare-sim" "$T/live/report.txt" && grep -q "^  bounds: a share within 2 points" "$T/live/report.txt" && grep -q "AGREEMENT (--compare-sim" "$T/live/index.html"'
check "live exits 0" '[ $lrc -eq 0 ]'
check "live: every query has a row" '[ $(($(wc -l < "$T/live/queries.csv") - 1)) -ge 300 ]'
check "live: the down mirror refused connections" 'grep -q ",b:9312,1,connect_failure," "$T/live/queries.csv"'
check "live: real vs simulated printed" 'grep -q "real vs simulated" "$T/live.out" && [ -s "$T/live/compare.csv" ]'
check "live --plot: the plots: line, gnuplot's own warnings kept off the terminal" 'grep -q "^plots: $T/live/plots/ (open $T/live/index.html)" "$T/live.out" && ! grep -q "gnuplot\|\.gp\"\|Skipping data file" "$T/live.out"'
check "live --compare-sim --plot: compare's two panels side by side, no panel over another" 'python3 "$S/tests/svg_check.py" "$T/live/plots/compare.svg" "$T/live/plots/"*.svg > "$T/svg.out" && grep -q "^svg_check: [0-9]* charts, [0-9]* panels, 0 problems" "$T/svg.out" && grep -q "compare" <(ls "$T/live/plots")'
check "live: no mirror left running" '[ $lrc -eq 0 ] && ! pgrep -f "hareal mirror --listen 127.0.0.1:[0-9]* --scenario $T/live.scn" > /dev/null'

# the same scenario both ways: each fault lands in the same SHOW AGENT STATUS counters for real
# and in the simulator (Sphinx 2.2.11 layout: one row per counter)
cat > "$T/both.scn" <<'SCN'
searchd { ha_period_karma = 10s  ha_ping_interval = 250  agent_query_timeout = 250  agent_connect_timeout = 150 }
table dist { type = distributed
  agent = a:9312|b:9312|c:9312|d:9312:shard1
  ha_strategy = random
}
mirror default { service = constant(2ms) threads = 4 }
workload { arrivals = poisson(100/s) duration = 4s }
fault b:9312 { at = 1s for = 2s kind = down }
fault c:9312 { at = 1s for = 2s kind = stall }
fault d:9312 { at = 1s for = 2s kind = stuck }
SCN
timeout 60 "$H" live "$T/both.scn" --out "$T/both" --compare-sim --variant sphinx2 > /dev/null 2>&1
nonzero() { awk -F'\t' -v h=$2 '$1 ~ "^ag_"h"_15periods_" && $1 !~ /msecsperquery|connect_(count|avg|max)/ && $2+0 > 0 {sub("^ag_"h"_15periods_", "", $1); print $1}' "$1" | sort | tr '\n' ' '; }
# a query in flight at the instant of a kill gets a reset (network_errors, or unexpected_closings
# if it was still in the handshake), at the instant of a SIGSTOP a query timeout; whether one is
# in flight then is a matter of timing, so those counters are left out of the comparison
inflight() { sed -e 's/network_errors //' -e 's/query_timeouts //' -e 's/unexpected_closings //'; }
for h in 0 1 2 3; do
  r=$(nonzero "$T/both/agent_status.txt" $h | inflight)
  m=$(nonzero "$T/both/sim/agent_status.txt" $h | inflight)
  check "host $h: same counters real [$r] and simulated [$m]" '[ -n "$r" ] && [ "$r" = "$m" ]'
done
check "down counts connect_failures, stall connect_timeouts, stuck query_timeouts (2.2.11)" '[ "$(nonzero "$T/both/agent_status.txt" 1 | inflight)" = "connect_failures succeeded_queries " ] && [ "$(nonzero "$T/both/agent_status.txt" 2 | inflight)" = "connect_timeouts succeeded_queries " ] && [ "$(nonzero "$T/both/agent_status.txt" 3)" = "query_timeouts succeeded_queries " ]'

# closed loop for real: 4 clients, no think time, one mirror of 2 workers at 10 ms: about 200/s
cat > "$T/closed.scn" <<'SCN'
searchd { ha_period_karma = 2s }
table dist { type = distributed
  agent = a:9312:shard1
}
mirror default { service = constant(10ms) threads = 2 }
workload { clients = 4  think = constant(0)  duration = 3s }
SCN
timeout 60 "$H" live "$T/closed.scn" --out "$T/closed" > "$T/closed.out" 2>&1
n=$(($(wc -l < "$T/closed/queries.csv") - 1))
check "live closed loop: 4 clients on 2 workers of 10 ms send about 200/s ($n in 3 s)" '[ $n -ge 450 ] && [ $n -le 610 ]'

# --base-port: mirror h on N+h; a port in use, or past 65535, refused with its number
bp=$((BASE + 38))
timeout 60 "$H" live "$T/closed.scn" --base-port $bp --duration 1s --out "$T/bp" > /dev/null 2> "$T/bp.err"
check "live --base-port $bp: the mirror on it, the run answered" '[ $? -eq 0 ] && grep -q "1 mirrors up: a:9312=127.0.0.1:$bp$" "$T/bp.err" && grep -q ",dist,1,a:9312,1,ok," "$T/bp/queries.csv"'
mirror $bp; wait_port $bp
timeout 60 "$H" live "$T/closed.scn" --base-port $bp --duration 1s --out "$T/bp2" > /dev/null 2> "$T/bp2.err"
check "live --base-port on a port in use: refused with its number" '[ $? -ne 0 ] && grep -q "port $bp (mirror a:9312, --base-port $bp + 0) is in use" "$T/bp2.err"'
timeout 60 "$H" live "$T/live.scn" --base-port 65535 --duration 1s --out "$T/bp3" > /dev/null 2> "$T/bp3.err"
check "live --base-port 65535 for 2 mirrors: refused, the range said" '[ $? -ne 0 ] && grep -q "mirror b:9312 would need port 65536; the scenario.s 2 mirrors need 65535 to 65536" "$T/bp3.err" && ! pgrep -f "hareal mirror --listen 127.0.0.1:65535 " > /dev/null'
"$H" live "$T/closed.scn" --base-port 0 --out "$T/bp4" > /dev/null 2> "$T/bp4.err"
check "live --base-port 0: a usage error" '[ $? -eq 2 ]'

# every mirror a real agent (--agents): the scenario needs no mirror sections; --compare-sim
# does (it simulates them), and a mirror hareal plays itself does
printf 'searchd { ha_period_karma = 2s }\ntable dist {\n type = distributed\n agent = r1:9312|r2:9312:shard1\n}\nworkload { arrivals = poisson(50/s)  duration = 1s }\n' > "$T/real.scn"
ag="r1:9312=127.0.0.1:$((BASE + 39)),r2:9312=127.0.0.1:$((BASE + 39))"
timeout 60 "$H" live "$T/real.scn" --agents "$ag" --out "$T/real" > /dev/null 2> "$T/real.err"
check "live, every mirror a real agent, no mirror section: answered" '[ $? -eq 0 ] && grep -q ",dist,1,r2:9312,1,ok," "$T/real/queries.csv"'
timeout 60 "$H" live "$T/real.scn" --agents "$ag" --compare-sim --out "$T/real2" > /dev/null 2> "$T/real2.err"
check "live --agents --compare-sim without a model of them: exit 3, the line said" '[ $? -eq 3 ] && grep -q "real.scn:4:10: --compare-sim simulates your agents too: mirror r1:9312 has no behaviour" "$T/real2.err" && [ ! -e "$T/real2" ]'
timeout 60 "$H" live "$T/real.scn" --agents "r1:9312=127.0.0.1:$((BASE + 39))" --out "$T/real3" > /dev/null 2> "$T/real3.err"
check "live: a mirror hareal plays needs a behaviour: exit 3, its line and column" '[ $? -eq 3 ] && grep -q "real.scn:4:18: mirror r2:9312 has no behaviour" "$T/real3.err"'

# a hakarma-extension strategy drives the real master too: peak-ewma sees which mirror is fast
mirror $((BASE + 36)) --service "constant(2ms)"; mirror $((BASE + 37)) --service "constant(30ms)"
wait_port $((BASE + 36)); wait_port $((BASE + 37))
conf "$T/pe.conf" $((BASE + 36)) $((BASE + 37))
trace "$T/t200.csv" 200
timeout 30 "$H" replay --config "$T/pe.conf" --trace "$T/t200.csv" --strategy peak-ewma --out "$T/pe" > /dev/null 2>&1
check "peak-ewma replay: the 2 ms mirror gets over 80%" '[ $(grep -c "127.0.0.1:$((BASE + 36)),1,ok" "$T/pe/queries.csv") -gt 160 ]'
"$H" replay --config "$T/pe.conf" --trace "$T/t200.csv" --strategy fastest --out "$T/pe2" > /dev/null 2> "$T/pe2.err"
check "unknown strategy: exit 2, the extensions listed" '[ $? -eq 2 ] && grep -q "peak-ewma" "$T/pe2.err"'

echo "cli_hareal: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
