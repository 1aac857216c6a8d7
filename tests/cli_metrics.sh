#!/bin/bash
# /metrics of hareal mirror: the Prometheus text format checked by the real promtool (Debian
# prometheus), its counts equal to what the mirror's own query log says it did, the fault it
# is in, and the HTTP side refusing what is not a GET of a known page; replay's, live's and
# the proxy's too, and the Grafana dashboard's queries against what they serve.
B=${1:?build dir}
S=${2:?source dir}
if ! command -v promtool > /dev/null; then
  if [ "${CI:-}" = true ]; then echo "cli_metrics: promtool missing: 0 passed, 1 failed"; exit 1; fi
  echo "cli_metrics: promtool not installed (.ci/setup installs prometheus): skipped"; exit 77
fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
. "$S/tests/lib.sh"
H="$B/hareal"
P=$(( 26000 + ($$ % 90) * 10 ))  # 26000-26900: below the ephemeral range, apart from other tests
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# http PORT REQUEST-LINE [BODY-BYTES]: the whole answer, as the server sent it
http() { exec 3<>/dev/tcp/127.0.0.1/$1 && printf '%s\r\nHost: t\r\n\r\n' "$2" >&3 && timeout 5 cat <&3 2> /dev/null; exec 3<&-; }
body() { sed '1,/^\r$/d'; }

"$H" mirror --listen 127.0.0.1:$P --metrics 127.0.0.1:$((P+1)) --service "constant(3ms)" --errors 0.2 --log "$T/m.csv" 2> "$T/m.err" & m=$!; PIDS+=($m)
wait_port $P; wait_port $((P+1))
printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d:shard1\n}\n' $P > "$T/c.conf"
{ echo t_s,table,query; for i in $(seq 0 199); do printf '%d.%03d,d,q%d\n' $((i / 100)) $(( (i % 100) * 10 )) $i; done; } > "$T/t.csv"
"$H" replay --config "$T/c.conf" --trace "$T/t.csv" --out "$T/r" > /dev/null 2>&1
http $((P+1)) "GET /metrics HTTP/1.1" > "$T/a.txt"
body < "$T/a.txt" | tr -d '\r' > "$T/m.txt"
check "the mirror says where it serves them" 'grep -q "metrics on http://127.0.0.1:$((P+1))/metrics" "$T/m.err"'
check "200 in the exposition format's content type" 'head -1 "$T/a.txt" | grep -q "^HTTP/1.1 200 OK" && grep -qi "^Content-Type: text/plain; version=0.0.4; charset=utf-8" "$T/a.txt"'
promtool check metrics < "$T/m.txt" > "$T/lint.txt" 2>&1; prc=$?
check "promtool check metrics: valid, no lint problem" '[ $prc -eq 0 ] && [ ! -s "$T/lint.txt" ]'
ok=$(grep -c ',ok$' "$T/m.csv"); er=$(grep -c ',error$' "$T/m.csv")
check "searches by outcome = the mirror's own log (ok $ok, error $er of 200)" 'grep -qx "hakarma_mirror_searches_total{outcome=\"ok\"} $ok" "$T/m.txt" && grep -qx "hakarma_mirror_searches_total{outcome=\"error\"} $er" "$T/m.txt" && [ $((ok + er)) -eq 200 ] && [ $er -gt 15 ]'
check "the reply delays: 200 observed, all in the 2.5-5 ms bucket, 0.6 s in all" 'grep -qx "hakarma_mirror_reply_delay_seconds_count 200" "$T/m.txt" && grep -qx "hakarma_mirror_reply_delay_seconds_bucket{le=\"0.0025\"} 0" "$T/m.txt" && grep -qx "hakarma_mirror_reply_delay_seconds_bucket{le=\"0.005\"} 200" "$T/m.txt" && awk "/^hakarma_mirror_reply_delay_seconds_sum/ {exit !(\$2 > 0.59 && \$2 < 0.61)}" "$T/m.txt"'
check "no fault on: none is 1, the others 0" 'grep -qx "hakarma_mirror_fault_active{kind=\"none\"} 1" "$T/m.txt" && [ $(grep -c "^hakarma_mirror_fault_active{.*} 1$" "$T/m.txt") -eq 1 ]'
check "connections accepted counted" 'awk "/^hakarma_mirror_connections_accepted_total/ {exit !(\$2 >= 1)}" "$T/m.txt"'
check "another page: 404" 'http $((P+1)) "GET /other HTTP/1.1" | head -1 | grep -q "^HTTP/1.1 404"'
check "POST: 405" 'http $((P+1)) "POST /metrics HTTP/1.1" | head -1 | grep -q "^HTTP/1.1 405"'
check "HEAD: the headers, no body" 'http $((P+1)) "HEAD /metrics HTTP/1.1" > "$T/h.txt"; head -1 "$T/h.txt" | grep -q "^HTTP/1.1 200" && [ -z "$(body < "$T/h.txt")" ]'
check "not HTTP: 400" 'http $((P+1)) "HELLO THERE" | head -1 | grep -q "^HTTP/1.1 400"'
long=$(head -c 9000 /dev/zero | tr '\0' a)
check "a request over 8 KiB: 413" 'http $((P+1)) "GET /$long HTTP/1.1" | head -1 | grep -q "^HTTP/1.1 413"'
check "a query string is not part of the path" 'http $((P+1)) "GET /metrics?x=1 HTTP/1.1" | head -1 | grep -q "^HTTP/1.1 200"'
# a peer that connects and says nothing holds a slot only RL_HTTP_IDLE_MS (5 s)
t0=$(date +%s%N); exec 4<>/dev/tcp/127.0.0.1/$((P+1)); timeout 15 cat <&4 > /dev/null; t1=$(date +%s%N); exec 4<&-
check "a silent peer is closed after 5 s ($(( (t1 - t0) / 1000000 )) ms)" '[ $(( (t1 - t0) / 1000000 )) -ge 4500 ] && [ $(( (t1 - t0) / 1000000 )) -lt 12000 ]'
kill -TERM $m; wait $m; mrc=$?
check "SIGTERM: exit 0, the metrics port closed" '[ $mrc -eq 0 ] && ! (exec 3<>/dev/tcp/127.0.0.1/$((P+1))) 2>/dev/null'

# a fault, and the port taken
"$H" mirror --listen 127.0.0.1:$((P+2)) --metrics 127.0.0.1:$((P+3)) --fault "slow(3)" --quiet & m2=$!; PIDS+=($m2)
wait_port $((P+3))
check "slow(3) on: its gauge is 1" 'http $((P+3)) "GET /metrics HTTP/1.1" | tr -d "\r" | grep -qx "hakarma_mirror_fault_active{kind=\"slow\"} 1"'
"$H" mirror --listen 127.0.0.1:$((P+4)) --metrics 127.0.0.1:$((P+3)) --quiet 2> "$T/busy.err"; brc=$?
check "--metrics on a port in use: refused with the address" '[ $brc -ne 0 ] && grep -q "metrics on 127.0.0.1:$((P+3)): address already in use" "$T/busy.err"'
"$H" mirror --listen 127.0.0.1:$((P+4)) --metrics nowhere --quiet 2> "$T/bad.err"; brc=$?
check "--metrics without a port: a usage error" '[ $brc -eq 2 ] && grep -q "expected IP:PORT" "$T/bad.err"'

# the master's side: hareal replay --metrics while it runs, over a mirror answering ERROR to half
"$H" mirror --listen 127.0.0.1:$((P+5)) --service "constant(2ms)" --quiet & PIDS+=($!)
"$H" mirror --listen 127.0.0.1:$((P+6)) --service "constant(2ms)" --errors 0.5 --quiet & PIDS+=($!)
wait_port $((P+5)); wait_port $((P+6))
printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d|127.0.0.1:%d:shard1\n ha_strategy = roundrobin\n}\n' $((P+5)) $((P+6)) > "$T/c2.conf"
{ echo t_s,table,query; for i in $(seq 0 299); do printf '%d.%02d,d,q%d\n' $((i / 100)) $((i % 100)) $i; done; } > "$T/t3.csv"
"$H" replay --config "$T/c2.conf" --trace "$T/t3.csv" --metrics 127.0.0.1:$((P+7)) --out "$T/r2" > /dev/null 2> "$T/r2.err" & r=$!; PIDS+=($r)
wait_port $((P+7)); sleep 1.5
http $((P+7)) "GET /metrics HTTP/1.1" | body | tr -d '\r' > "$T/rm.txt"
wait $r; rrc=$?
promtool check metrics < "$T/rm.txt" > "$T/rlint.txt" 2>&1; prc=$?
check "replay --metrics mid-run: valid for promtool, lint-clean" '[ $prc -eq 0 ] && [ ! -s "$T/rlint.txt" ] && [ -s "$T/rm.txt" ]'
n5=$(sed -n "s/^hakarma_master_lines_total{mirror=\"127.0.0.1:$((P+5))\",outcome=\"ok\"} //p" "$T/rm.txt")
n6=$(sed -n "s/^hakarma_master_lines_total{mirror=\"127.0.0.1:$((P+6))\",outcome=\"remote_error\"} //p" "$T/rm.txt")
f5=$(grep -c ",127.0.0.1:$((P+5)),1,ok," "$T/r2/queries.csv"); f6=$(grep -c ",127.0.0.1:$((P+6)),1,remote_error," "$T/r2/queries.csv")
check "mid-run: still sending, its counts part of the final ones (ok $n5 of $f5, remote_error $n6 of $f6)" '[ $rrc -eq 0 ] && grep -qx "hakarma_master_sending 1" "$T/rm.txt" && [ "${n5:-0}" -ge 50 ] && [ "$n5" -lt "$f5" ] && [ "${n6:-0}" -ge 10 ] && [ "$n6" -le "$f6" ]'
check "mid-run: answered lines have latency, failed queries are counted beside it" 'grep -q "^hakarma_master_line_latency_seconds_count{mirror=\"127.0.0.1:$((P+5))\"} $n5$" "$T/rm.txt" && awk "/^hakarma_master_queries_total{outcome=\"failed\"}/ {exit !(\$2 >= 10)}" "$T/rm.txt"'
check "replay ended: its metrics port closed with it" '! (exec 3<>/dev/tcp/127.0.0.1/$((P+7))) 2>/dev/null'
"$H" replay --config "$T/c2.conf" --trace "$T/t3.csv" --metrics 9400 --out "$T/r3" > /dev/null 2> "$T/r3.err"; brc=$?
check "replay --metrics without an address: a usage error" '[ $brc -eq 2 ] && grep -q "expected IP:PORT" "$T/r3.err"'
"$H" replay --config "$T/c2.conf" --trace "$T/t3.csv" --metrics 127.0.0.1:$((P+3)) --out "$T/r4" > /dev/null 2> "$T/r4.err"; brc=$?
check "replay --metrics on a port in use: refused, no run left behind" '[ $brc -ne 0 ] && grep -q "address already in use" "$T/r4.err" && [ ! -e "$T/r4/queries.csv" ]'

# hareal live --metrics: the same page while a fault is on
cat > "$T/live.scn" <<'SCN'
searchd { ha_period_karma = 2s  ha_ping_interval = 300 }
table dist { type = distributed
  agent = a:9312|b:9312:shard1
  ha_strategy = random
}
mirror default { service = constant(2ms) }
workload { arrivals = poisson(200/s) duration = 4s }
fault b:9312 { at = 1s for = 2s kind = down }
SCN
timeout 60 "$H" live "$T/live.scn" --metrics 127.0.0.1:$((P+8)) --mirror-metrics $((P+10)) --out "$T/live" > /dev/null 2> "$T/live.err" & l=$!; PIDS+=($l)
wait_port $((P+8)); wait_port $((P+10)); sleep 2.5
http $((P+8)) "GET /metrics HTTP/1.1" | body | tr -d '\r' > "$T/lm.txt"
http $((P+10)) "GET /metrics HTTP/1.1" | body | tr -d '\r' > "$T/lma.txt"
wait $l; lrc=$?
check "live --mirror-metrics: each mirror child serves its own, the ports printed" 'grep -q "a:9312=127.0.0.1:[0-9]* (metrics :$((P+10))) b:9312=127.0.0.1:[0-9]* (metrics :$((P+11)))" "$T/live.err" && promtool check metrics < "$T/lma.txt" > /dev/null 2>&1 && awk "/^hakarma_mirror_searches_total{outcome=\"ok\"}/ {exit !(\$2 >= 100)}" "$T/lma.txt" && ! (exec 3<>/dev/tcp/127.0.0.1/$((P+10))) 2>/dev/null'
timeout 60 "$H" live "$T/live.scn" --base-port $((P+12)) --mirror-metrics $((P+13)) --out "$T/live2" > /dev/null 2> "$T/live2.err"; orc=$?
check "live: --base-port and --mirror-metrics ranges overlapping: refused" '[ $orc -ne 0 ] && grep -q "overlap for 2 mirrors" "$T/live2.err"'
promtool check metrics < "$T/lm.txt" > /dev/null 2>&1; prc=$?
check "live --metrics during b's down fault: valid, b's refused lines counted" '[ $lrc -eq 0 ] && [ $prc -eq 0 ] && awk "/^hakarma_master_lines_total{mirror=\"b:9312\",outcome=\"connect_failure\"}/ {exit !(\$2 >= 20)}" "$T/lm.txt" && awk "/^hakarma_master_lines_total{mirror=\"a:9312\",outcome=\"ok\"}/ {exit !(\$2 >= 100)}" "$T/lm.txt"'

# hareal proxy's /metrics (the dashboard's proxy panels read them): in front of a mirror, an
# errors toxic on half the searches
"$H" mirror --listen 127.0.0.1:$((P+16)) --quiet & PIDS+=($!)
wait_port $((P+16))
"$H" proxy --listen 127.0.0.1:$((P+14)) --upstream 127.0.0.1:$((P+16)) --api 127.0.0.1:$((P+15)) --name m --quiet & x=$!; PIDS+=($x)
wait_port $((P+15))
curl -s -d '{"type":"errors","toxicity":0.5}' 127.0.0.1:$((P+15))/proxies/m/toxics > /dev/null
sed "s/127.0.0.1:$P:/127.0.0.1:$((P+14)):/" "$T/c.conf" > "$T/px.conf"
"$H" replay --config "$T/px.conf" --trace "$T/t.csv" --out "$T/rx" > /dev/null 2>&1
curl -s 127.0.0.1:$((P+15))/metrics > "$T/px.txt"
promtool check metrics < "$T/px.txt" > "$T/pxlint.txt" 2>&1; prc=$?
er=$(grep -c ",remote_error," "$T/rx/queries.csv")
check "proxy /metrics: valid, its ERROR replies = the master's remote errors ($er of 200)" '[ $prc -eq 0 ] && [ ! -s "$T/pxlint.txt" ] && grep -qx "hakarma_proxy_searches_total{proxy=\"m\",action=\"error\"} $er" "$T/px.txt" && [ $er -gt 70 ] && [ $er -lt 130 ]'
kill $x

# the Grafana dashboard: JSON, each query PromQL that promtool accepts (as a recording rule, with
# Grafana's $__rate_interval as 1m), each metric it names one the programs above served
D="$S/plots/grafana/hakarma-rehearsal.json"
python3 - "$D" "$T/rules.yml" "$T/names.txt" <<'PY' 2> "$T/dash.err"; drc=$?
import json, re, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p["targets"]]
with open(sys.argv[2], "w") as f:
    f.write("groups:\n- name: dashboard\n  rules:\n")
    for i, e in enumerate(exprs):
        f.write("  - record: hakarma:dashboard_%d\n    expr: %s\n" % (i, json.dumps(e.replace("$__rate_interval", "1m"))))
open(sys.argv[3], "w").write("\n".join(sorted(set(re.findall(r"hakarma_[a-z_]+", " ".join(exprs))))) + "\n")
print(len(exprs), file=sys.stderr)
PY
promtool check rules "$T/rules.yml" > "$T/rules.out" 2>&1; rrc=$?
cat "$T/m.txt" "$T/rm.txt" "$T/px.txt" | sed -n 's/^\(hakarma_[a-z_]*\).*/\1/p' | sort -u > "$T/served.txt"
missing=$(comm -23 "$T/names.txt" "$T/served.txt" | grep -v "^hakarma_searchd_" | tr '\n' ' ')  # those: cli_livesd
check "the Grafana dashboard: JSON, $(cat "$T/dash.err" 2>/dev/null) queries promtool accepts, no metric unserved (${missing:-none missing})" '[ $drc -eq 0 ] && [ $rrc -eq 0 ] && [ -z "$missing" ] && [ -s "$T/names.txt" ]'

echo "cli_metrics: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
