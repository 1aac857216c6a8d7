#!/usr/bin/env bash
# Every toxic kind of hareal proxy, one at a time, between hakarma's own master (hareal replay)
# and mirror, where the truth is known: what the master must see for each, query by query
# (queries.csv's status and latency), and what the proxy says it did (its /metrics counters).
# No searchd needed; cli_proxy does the same with a real 2.2.11 master and agents.
#   none       all ok, fast            errors     all remote_error (and toxicity 0.5: a share)
#   warnings   all warning             latency    all ok, none under the latency
#   slow       ok, upstream x factor   bandwidth  ok, the reply paced
#   reset      all network_error       refuse     all connect_failure (the port closed);
#   blackhole, stuck, stall: all query_timeout     below toxicity 1 a share, accepted then reset
#   and the agent itself dead: every query fails, the proxy counts the failed connects.
set -u
B=$1
. "$(dirname "$0")/lib.sh"
[ -x "$B/hareal" ] || { echo "FAIL: $B/hareal is missing"; exit 1; }
needs cli_pxkinds curl
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
H="$B/hareal"
P=$(( 14000 + ($$ % 95) * 10 ))  # 14000-14950: below the ephemeral range, apart from other tests
M=$P; X=$((P+1)); API=$((P+2))

"$H" mirror --listen 127.0.0.1:$M --service 5ms --quiet & PIDS+=($!); mpid=$!
printf '[{"name":"m1","listen":"127.0.0.1:%d","upstream":"127.0.0.1:%d"}]\n' $X $M > "$T/px.json"
# started with a soft open-files limit of 256 (a stock login's is 1024: 500 proxied connections)
(ulimit -Sn 256; exec "$H" proxy --config "$T/px.json" --api 127.0.0.1:$API --seed 7) > "$T/px.out" 2>&1 & PIDS+=($!); xpid=$!
wait_port $M && wait_port $API || { echo "FAIL: mirror or proxy did not start"; cat "$T/px.out"; exit 1; }
printf 'searchd { ha_period_karma = 60  ha_ping_interval = 0  agent_connect_timeout = 1000  agent_query_timeout = 1000 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d:shard1\n}\n' $X > "$T/c.conf"
awk 'BEGIN {print "t_s,table,query"; for (i = 0; i < 40; i++) printf "%.3f,d,q%d\n", i / 100, i}' > "$T/t.csv"

# run NAME [TOXIC_JSON]: the replay with that toxic on; its statuses counted, latencies kept
run() {
  if [ -n "${2:-}" ]; then
    code=$(curl -s -o "$T/$1.api" -w "%{http_code}" -X POST -d "$2" http://127.0.0.1:$API/proxies/m1/toxics)
    [ "$code" = 200 ] || echo "FAIL: $1: the API answered $code: $(cat "$T/$1.api")"
  fi
  timeout 60 "$H" replay --config "$T/c.conf" --trace "$T/t.csv" --out "$T/$1" > /dev/null 2>&1
  awk -F, 'NR > 1 {print $8}' "$T/$1/queries.csv" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}' > "$T/$1.st"
  awk -F, 'NR > 1 {print $9}' "$T/$1/queries.csv" | sort -n > "$T/$1.lat"
  [ -n "${2:-}" ] && curl -s -o /dev/null -X DELETE http://127.0.0.1:$API/proxies/m1/toxics/t
  return 0
}
st() { cat "$T/$1.st"; }
lo() { head -1 "$T/$1.lat"; }          # the fastest query's ms
hi() { tail -1 "$T/$1.lat"; }          # the slowest
ge() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a + 0 >= b + 0)}'; }
metric() { curl -s http://127.0.0.1:$API/metrics | awk -v k="$1" 'index($0, k) == 1 {print $2}'; }

check "the proxy raised its open-files limit from 256 to the hard one ($(ulimit -Hn)) [$(awk '/open files/ {print $4}' /proc/$xpid/limits)]" '[ "$(awk "/open files/ {print \$4}" /proc/$xpid/limits)" = "$(ulimit -Hn)" ] || [ "$(ulimit -Hn)" = unlimited ]'
run none;      check "no toxic: 40 ok, under 200 ms (a CPU hog beside) [$(st none) max $(hi none)]" '[ "$(st none)" = "ok=40 " ] && ! ge "$(hi none)" 200'
run errors '{"name":"t","type":"errors"}'
check "errors: 40 remote_error [$(st errors)]" '[ "$(st errors)" = "remote_error=40 " ]'
run half '{"name":"t","type":"errors","toxicity":0.5}'
check "errors at toxicity 0.5: a share of each, 10..30 of 40 [$(st half)]" 'h=$(st half); e=${h#*remote_error=}; e=${e%% *}; o=${h#ok=}; o=${o%% *}; [ $((e + o)) -eq 40 ] && [ $e -ge 10 ] && [ $e -le 30 ]'
run warnings '{"name":"t","type":"warnings"}'
check "warnings: 40 warning [$(st warnings)]" '[ "$(st warnings)" = "warning=40 " ]'
run latency '{"name":"t","type":"latency","attributes":{"latency":60}}'
check "latency 60 ms: 40 ok, none under 60 ms [$(st latency) min $(lo latency)]" '[ "$(st latency)" = "ok=40 " ] && ge "$(lo latency)" 60'
run slow '{"name":"t","type":"slow","attributes":{"factor":5}}'
check "slow x5 over a 5 ms agent: 40 ok, none under 20 ms [$(st slow) min $(lo slow)]" '[ "$(st slow)" = "ok=40 " ] && ge "$(lo slow)" 20'
run bandwidth '{"name":"t","type":"bandwidth","attributes":{"rate":1}}'
check "bandwidth 1 KB/s: 40 ok, the reply paced past 30 ms [$(st bandwidth) min $(lo bandwidth)]" '[ "$(st bandwidth)" = "ok=40 " ] && ge "$(lo bandwidth)" 30'
run reset '{"name":"t","type":"reset"}'
check "reset: 40 network_error [$(st reset)]" '[ "$(st reset)" = "network_error=40 " ]'
run refuse '{"name":"t","type":"refuse"}'
check "refuse: 40 connect_failure, the port closed [$(st refuse)]" '[ "$(st refuse)" = "connect_failure=40 " ]'
acc0=$(metric 'hakarma_proxy_connections_accepted_total{proxy="m1"}')
run refhalf '{"name":"t","type":"refuse","toxicity":0.5}'
check "refuse at 0.5: a share fails, the rest ok [$(st refhalf)]" 'h=$(st refhalf); o=${h#*ok=}; o=${o%% *}; [ "$o" -ge 10 ] && [ "$o" -le 30 ]'
check "refuse at 0.5: every connect accepted, some reset [$(metric 'hakarma_proxy_connections_refused_total{proxy="m1"}')]" '[ $(( $(metric "hakarma_proxy_connections_accepted_total{proxy=\"m1\"}") - acc0 )) -eq 40 ] && [ "$(metric "hakarma_proxy_connections_refused_total{proxy=\"m1\"}")" -ge 10 ]'
for k in blackhole stuck stall; do
  run $k "{\"name\":\"t\",\"type\":\"$k\"}"
  check "$k: 40 query_timeout, at the 1000 ms timeout [$(st $k) min $(lo $k)]" '[ "$(st $k)" = "query_timeout=40 " ] && ge "$(lo $k)" 990'
done
run after
check "every toxic gone: 40 ok again [$(st after)]" '[ "$(st after)" = "ok=40 " ]'
check "the proxy's counters: 40 errors, 40 + 40 warnings/reset as done [$(metric 'hakarma_proxy_searches_total{proxy="m1",action="error"}') $(metric 'hakarma_proxy_searches_total{proxy="m1",action="warning"}') $(metric 'hakarma_proxy_searches_total{proxy="m1",action="reset"}')]" \
  'e=$(metric "hakarma_proxy_searches_total{proxy=\"m1\",action=\"error\"}"); [ "$e" -ge 50 ] && [ "$e" -le 70 ] && [ "$(metric "hakarma_proxy_searches_total{proxy=\"m1\",action=\"warning\"}")" = 40 ] && [ "$(metric "hakarma_proxy_searches_total{proxy=\"m1\",action=\"reset\"}")" = 40 ]'

kill $mpid; wait $mpid 2>/dev/null
run dead
check "the agent dead: all 40 fail (connect_failure or unexpected_close) [$(st dead)]" 'h=$(st dead); ! echo "$h" | grep -q "ok=" && [ $(echo "$h" | tr " " "\n" | awk -F= "{s += \$2} END {print s}") -eq 40 ]'
check "the agent dead: the proxy counts 40 failed connects [$(metric 'hakarma_proxy_upstream_connect_failures_total{proxy="m1"}')]" '[ "$(metric "hakarma_proxy_upstream_connect_failures_total{proxy=\"m1\"}")" = 40 ]'

[ $fail -ne 0 ] && tail -n 5 "$T/px.out"
echo "cli_pxkinds: $pass passed, $fail failed"
[ $fail -eq 0 ]
