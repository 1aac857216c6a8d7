#!/bin/bash
# /metrics of hareal mirror: the Prometheus text format checked by the real promtool (Debian
# prometheus), its counts equal to what the mirror's own query log says it did, the fault it
# is in, and the HTTP side refusing what is not a GET of a known page.
B=${1:?build dir}
if ! command -v promtool > /dev/null; then
  if [ "${CI:-}" = true ]; then echo "cli_metrics: promtool missing: 0 passed, 1 failed"; exit 1; fi
  echo "cli_metrics: promtool not installed (.ci/setup installs prometheus): skipped"; exit 77
fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
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

echo "cli_metrics: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
