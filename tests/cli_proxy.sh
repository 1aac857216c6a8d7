#!/usr/bin/env bash
# hareal proxy against the real peer: a Sphinx 2.2.11 master -> hareal proxy -> a 2.2.11 agent
# with data (a second agent as the proxied one's mirror), faults set over the control API with
# curl mid-run, as an operator would:
#  1. no fault: the master's rows through the proxy are the rows without it;
#  2. stuck: the master counts query timeouts for that agent while its pings pass (errorsarow
#     stays 0), and the mirror answers;
#  3. errors: the master's error names the agent and says our text; warnings: the rows, and
#     the master counts the warning (2.2.11 shows its text nowhere);
#  4. the toxic removed: the rows again;
#  5. the API as toxiproxy's (404, 409, 400 with what was expected), /metrics through promtool;
#  6. --config (toxiproxy's array) serves two upstreams; a bad config is refused with its file;
#  7. a scenario's fault blocks on schedule; SIGTERM ends it, exit 0, its ports let go.
set -u
B=$1
. "$(dirname "$0")/lib.sh"
[ -x "$B/hareal" ] || { echo "FAIL: $B/hareal is missing"; exit 1; }
needs cli_proxy searchd mysql curl promtool
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
H="$B/hareal"
P=$(( 15000 + ($$ % 95) * 10 ))  # 15000-15950: below the ephemeral range, apart from other tests
AA=$P; QA=$((P+1)); AB=$((P+2)); QB=$((P+3)); PX=$((P+4)); API=$((P+5)); QM=$((P+6))
PX2=$((P+7)); API2=$((P+8)); MX=$((P+9))
sql() { mysql -h127.0.0.1 -P$QM -N -B -e "$1" 2>&1; }
api() { curl -s -o "$T/api.body" -w "%{http_code}" "$@"; }

mkdir -p "$T/a" "$T/b"
sd_agent "$T/a" rt $AA $QA > "$T/a.conf"; sd_agent "$T/b" rt $AB $QB > "$T/b.conf"
mkdir -p "$T/m"
cat > "$T/m.conf" <<CONF
index direct
{
    type  = distributed
    agent = 127.0.0.1:$AA:rt
}
index via
{
    type  = distributed
    agent = 127.0.0.1:$PX:rt
}
index ha
{
    type                  = distributed
    agent                 = 127.0.0.1:$PX:rt|127.0.0.1:$AB:rt
    ha_strategy           = roundrobin
    agent_query_timeout   = 500
    agent_connect_timeout = 300
}
searchd
{
    listen           = 127.0.0.1:$QM:mysql41
    log              = $T/m/searchd.log
    query_log        = $T/m/query.log
    pid_file         = $T/m/searchd.pid
    workers          = threads
    binlog_path      =
    ha_period_karma  = 60
    ha_ping_interval = 200
}
CONF
searchd --config "$T/a.conf" --nodetach > "$T/a.out" 2>&1 & PIDS+=($!)
searchd --config "$T/b.conf" --nodetach > "$T/b.out" 2>&1 & PIDS+=($!)
"$H" proxy --listen 127.0.0.1:$PX --upstream 127.0.0.1:$AA --api 127.0.0.1:$API --name agA \
  > "$T/px.out" 2>&1 & XP=$!; PIDS+=($XP)
wait_port $QA; wait_port $QB; wait_port $API
rows="(1,'hello world',1),(2,'hello there',2),(3,'goodbye world',3),(4,'hello again world',4)"
for q in $QA $QB; do mysql -h127.0.0.1 -P$q -e "INSERT INTO rt (id, title, gid) VALUES $rows"; done
searchd --config "$T/m.conf" --nodetach > "$T/m.out" 2>&1 & PIDS+=($!)
wait_port $QM
check "a 2.2.11 master and two agents are up" 'grep -q "accepting connections" "$T/m.out" "$T/a.out" "$T/b.out"'

# 1. no fault: the same rows with and without the proxy
same=0
for w in hello world goodbye "hello world" again; do
  d=$(sql "SELECT id, gid, weight() FROM direct WHERE MATCH('$w') ORDER BY id ASC")
  v=$(sql "SELECT id, gid, weight() FROM via WHERE MATCH('$w') ORDER BY id ASC")
  [ -n "$d" ] && [ "$d" = "$v" ] && same=$((same+1))
done
check "no fault: the proxy changes no row (5 queries alike)" '[ $same -eq 5 ]'
check "the proxy passed those searches on" 'curl -s 127.0.0.1:$API/metrics | grep -qx "hakarma_proxy_searches_total{proxy=\"agA\",action=\"passed\"} 5"'

# 2. stuck, set over the API mid-run: query timeouts counted, pings still answered
pings0=$(curl -s 127.0.0.1:$API/metrics | sed -n 's/^hakarma_proxy_pings_total{proxy="agA",action="passed"} //p')
code=$(api -d '{"type":"stuck"}' 127.0.0.1:$API/proxies/agA/toxics)
check "stuck added over the API (200)" '[ "$code" = 200 ] && grep -q "\"type\":\"stuck\"" "$T/api.body"'
for i in 1 2 3 4; do sql "SELECT id FROM ha WHERE MATCH('hello')" >> "$T/stuck.txt"; done
sleep 1
st=$(sql "SHOW AGENT STATUS")
h=$(echo "$st" | awk -v a="127.0.0.1:$PX" '$2 == a {sub(/_hostname$/, "", $1); print $1}')
timeouts=$(echo "$st" | awk -v k="${h}_1periods_query_timeouts" '$1 == k {print $2}')
arow=$(echo "$st" | awk -v k="${h}_errorsarow" '$1 == k {print $2}')
pings1=$(curl -s 127.0.0.1:$API/metrics | sed -n 's/^hakarma_proxy_pings_total{proxy="agA",action="passed"} //p')
check "stuck: the master counts 2 query timeouts for the proxied agent (got '$timeouts')" '[ "$timeouts" = 2 ]'
check "stuck: the master says so" '[ $(grep -c "agent 127.0.0.1:$PX: query timed out" "$T/stuck.txt") -eq 2 ]'
check "stuck: the other mirror answered the rest" '[ $(grep -cx "1" "$T/stuck.txt") -eq 2 ]'
check "stuck: pings passed meanwhile ($pings0 -> $pings1) and keep it alive (errorsarow '$arow')" '[ "$pings1" -gt "$pings0" ] && [ "$arow" = 0 ]'
check "stuck: the proxy held 2 searches" 'curl -s 127.0.0.1:$API/metrics | grep -qx "hakarma_proxy_searches_total{proxy=\"agA\",action=\"held\"} 2"'
code=$(api -X DELETE 127.0.0.1:$API/proxies/agA/toxics/stuck_downstream)
check "stuck removed (204)" '[ "$code" = 204 ]'

# 3. errors: an ERROR reply the master turns into its own error text
api -d '{"name":"boom","type":"errors","attributes":{"message":"disk full on shard"}}' 127.0.0.1:$API/proxies/agA/toxics > /dev/null
out=$(sql "SELECT id FROM via WHERE MATCH('hello')")
check "errors: the master's error names the agent and says the reply's text [$out]" 'echo "$out" | grep -q "index via: agent 127.0.0.1:$PX: remote error: disk full on shard"'
code=$(api -d '{"type":"warnings","toxicity":1}' 127.0.0.1:$API/proxies/agA/toxics)
api -X DELETE 127.0.0.1:$API/proxies/agA/toxics/boom > /dev/null
out=$(sql "SELECT id FROM via WHERE MATCH('world')")
warns=$(sql "SHOW AGENT STATUS" | awk -v k="${h}_1periods_warnings" '$1 == k {print $2}')
check "warnings: the rows, and the master counts the agent's warning (got '$warns') [$(echo $out)]" '[ "$(echo $out)" = "1 3 4" ] && [ "$warns" = 1 ]'

# 4. every toxic gone: the rows again
code=$(api -X POST 127.0.0.1:$API/reset)
d=$(sql "SELECT id, gid FROM direct WHERE MATCH('hello') ORDER BY id ASC")
v=$(sql "SELECT id, gid FROM via WHERE MATCH('hello') ORDER BY id ASC")
check "reset (204): the same rows as without the proxy" '[ "$code" = 204 ] && [ -n "$d" ] && [ "$d" = "$v" ]'

# 5. the API as toxiproxy answers, and the metrics
code=$(api 127.0.0.1:$API/proxies/nosuch)
check "unknown proxy: 404 with a JSON error" '[ "$code" = 404 ] && grep -q "\"error\":\"no proxy nosuch\"" "$T/api.body"'
api -d '{"type":"latency","attributes":{"latency":1}}' 127.0.0.1:$API/proxies/agA/toxics > /dev/null
code=$(api -d '{"type":"latency"}' 127.0.0.1:$API/proxies/agA/toxics)
check "a toxic's name taken: 409" '[ "$code" = 409 ] && grep -q "already exists" "$T/api.body"'
code=$(api -d '{"type":"hang"}' 127.0.0.1:$API/proxies/agA/toxics)
check "an unknown type: 400 naming the types" '[ "$code" = 400 ] && grep -q "expected one of stall, stuck" "$T/api.body"'
code=$(api -d '{"type":"errors","toxicity":2}' 127.0.0.1:$API/proxies/agA/toxics)
check "toxicity 2: 400, a probability expected" '[ "$code" = 400 ] && grep -q "toxicity: expected a number in \[0, 1\]" "$T/api.body"'
# strict: unknown or duplicate keys, wrong types and names that cannot be deleted are refused
code=$(api -d '{"type":"latency","name":"l2","attributes":{"latncy":50}}' 127.0.0.1:$API/proxies/agA/toxics)
check "an unknown attribute key: 400 naming it (not a 0 ms latency)" '[ "$code" = 400 ] && grep -q "attributes: unknown key .latncy." "$T/api.body"'
code=$(api -d '{"type":"latency","name":"l3","toxicity":1,"toxicity":0}' 127.0.0.1:$API/proxies/agA/toxics)
check "a duplicate key: 400" '[ "$code" = 400 ] && grep -q "duplicate" "$T/api.body"'
code=$(api -d '{"type":"latency","nme":"l4"}' 127.0.0.1:$API/proxies/agA/toxics)
check "an unknown toxic key: 400 naming it" '[ "$code" = 400 ] && grep -q "toxic: unknown key .nme." "$T/api.body"'
for bad in 'a/b' 'a\nb' 'a b'; do
  code=$(api -d "{\"type\":\"latency\",\"name\":\"$bad\"}" 127.0.0.1:$API/proxies/agA/toxics)
  check "a toxic named '$bad': 400 (it could not be deleted, or would forge a log line)" '[ "$code" = 400 ] && grep -q "name: expected letters" "$T/api.body"'
done
code=$(api -X POST -d '{"enabled":"yes"}' 127.0.0.1:$API/proxies/agA)
check "enabled as a string: 400, not 200" '[ "$code" = 400 ] && grep -q "enabled: expected true or false" "$T/api.body"'
code=$(api -X POST -d '{"upstream":7}' 127.0.0.1:$API/proxies/agA)
check "upstream as a number: 400" '[ "$code" = 400 ] && grep -q "upstream: expected a string" "$T/api.body"'
code=$(api -X POST -d '{"enabeld":false}' 127.0.0.1:$API/proxies/agA)
check "an unknown proxy key: 400 naming it" '[ "$code" = 400 ] && grep -q "proxy: unknown key .enabeld." "$T/api.body"'
code=$(api -X POST -d "{\"upstream\":\"127.0.0.1:$PX\"}" 127.0.0.1:$API/proxies/agA)
check "a proxy pointed at itself: 400" '[ "$code" = 400 ] && grep -q "is its own listen address" "$T/api.body"'
code=$(api -d "{\"name\":\"loop\",\"listen\":\"127.0.0.1:$PX2\",\"upstream\":\"127.0.0.1:$PX2\"}" 127.0.0.1:$API/proxies)
check "a new proxy pointed at itself: 400" '[ "$code" = 400 ] && grep -q "is its own listen address" "$T/api.body" && port_free $PX2'
code=$(api -d '{"type":' 127.0.0.1:$API/proxies/agA/toxics)
check "not JSON: 400 with line and column" '[ "$code" = 400 ] && grep -q "not JSON: line 1 column" "$T/api.body"'
code=$(api -d '{"attributes":{"latency":7}}' 127.0.0.1:$API/proxies/agA/toxics/latency_downstream)
check "a toxic updated in place" '[ "$code" = 200 ] && grep -q "\"latency\":7" "$T/api.body"'
code=$(api 127.0.0.1:$API/proxies)
check "GET /proxies lists the proxy, its upstream and toxic" '[ "$code" = 200 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d[\"agA\"]; sys.exit(not (p[\"upstream\"]==\"127.0.0.1:$AA\" and p[\"enabled\"] and p[\"toxics\"][0][\"name\"]==\"latency_downstream\"))" "$T/api.body"'
curl -s 127.0.0.1:$API/metrics > "$T/metrics.txt"
check "/metrics passes promtool check metrics" 'promtool check metrics < "$T/metrics.txt" > "$T/promtool.out" 2>&1'
check "/metrics counts the errors, the held and the toxics on" 'grep -qx "hakarma_proxy_searches_total{proxy=\"agA\",action=\"error\"} 1" "$T/metrics.txt" && grep -qx "hakarma_proxy_toxics_active{proxy=\"agA\",type=\"latency\"} 1" "$T/metrics.txt"'
code=$(api -X POST -d '{"enabled":false}' 127.0.0.1:$API/proxies/agA)
out=$(sql "SELECT id FROM via WHERE MATCH('hello')")
check "a disabled proxy: connects refused, as a dead agent [$out]" '[ "$code" = 200 ] && echo "$out" | grep -q "agent 127.0.0.1:$PX: connect() failed"'
api -X POST 127.0.0.1:$API/reset > /dev/null
kill -TERM $XP; wait $XP; rc=$?
check "SIGTERM: exit 0, its ports let go" '[ $rc -eq 0 ] && port_free $PX && port_free $API'

# 6. several upstreams from one config; a bad one refused with its file
printf '[{"name":"a","listen":"127.0.0.1:%d","upstream":"127.0.0.1:%d"},\n {"name":"b","listen":"127.0.0.1:%d","upstream":"127.0.0.1:%d","enabled":true}]\n' \
  $PX $AA $PX2 $AB > "$T/px.json"
"$H" proxy --config "$T/px.json" --api 127.0.0.1:$API2 --metrics 127.0.0.1:$MX --quiet & XP=$!; PIDS+=($XP)
wait_port $API2; wait_port $MX
names=$(curl -s 127.0.0.1:$API2/proxies | python3 -c "import json,sys; print(' '.join(sorted(json.load(sys.stdin))))")
check "--config: two proxies [$names]" '[ "$names" = "a b" ]'
d=$(sql "SELECT id FROM direct WHERE MATCH('hello') ORDER BY id ASC")
v=$(sql "SELECT id FROM via WHERE MATCH('hello') ORDER BY id ASC")
check "--config: the first passes rows through" '[ -n "$d" ] && [ "$d" = "$v" ]'
check "--metrics: a second address with both proxies" 'curl -s 127.0.0.1:$MX/metrics | grep -q "hakarma_proxy_enabled{proxy=\"b\"} 1"'
kill -TERM $XP; wait $XP
printf '[{"name":"a","listen":"127.0.0.1:%d"}]\n' $PX > "$T/bad.json"
"$H" proxy --config "$T/bad.json" --api 127.0.0.1:$API2 > "$T/bad.out" 2>&1; rc=$?
check "a config without upstream: exit 3, its file and entry named" '[ $rc -eq 3 ] && grep -q "bad.json: proxy #1: proxy a: expected listen and upstream" "$T/bad.out"'
"$H" proxy --listen 127.0.0.1:$PX > "$T/bad.out" 2>&1; rc=$?
check "--listen without --upstream: a usage error" '[ $rc -eq 2 ] && grep -q "go together" "$T/bad.out"'

# 7. a scenario's faults on schedule: errors from 1 s to 2.5 s, then down from 3 s to 4 s
cat > "$T/s.scn" <<SCN
table d { type = distributed  agent = box1:9312|box2:9312:shard }
mirror default { service = constant(1ms) }
workload { arrivals = poisson(10/s)  duration = 10s }
fault box1:9312 { at = 1s  for = 1500ms  kind = errors(1) }
fault box1:9312 { at = 3s  for = 1s  kind = down }
SCN
"$H" proxy --listen 127.0.0.1:$PX --upstream 127.0.0.1:$AA --api 127.0.0.1:$API --scenario "$T/s.scn" --mirror box1:9312 > "$T/sch.out" 2>&1 & XP=$!; PIDS+=($XP)
t0=$(date +%s.%N); wait_port $API
at() { sleep "$(awk -v t0=$t0 -v t=$1 -v now=$(date +%s.%N) 'BEGIN {d = t0 + t - now; print (d > 0 ? d : 0)}')"; }
at 0.5; s1=$(sql "SELECT id FROM via WHERE MATCH('goodbye')")
at 1.6; s2=$(sql "SELECT id FROM via WHERE MATCH('goodbye')")
at 3.4; s3=$(sql "SELECT id FROM via WHERE MATCH('goodbye')")
at 4.6; s4=$(sql "SELECT id FROM via WHERE MATCH('goodbye')")
check "schedule: rows before the fault [$s1]" '[ "$s1" = 3 ]'
check "schedule: errors(1) from 1 s [$s2]" 'echo "$s2" | grep -q "remote error: hakarma proxy: injected error"'
check "schedule: down from 3 s, connects refused [$s3]" 'echo "$s3" | grep -q "connect() failed"'
check "schedule: rows again after 4 s [$s4]" '[ "$s4" = 3 ]'
check "schedule: each change said with its line" 'grep -q "scenario line 4: toxic scenario_4 (errors(1)) on box1:9312" "$T/sch.out" && grep -q "scenario line 5: proxy box1:9312 closed" "$T/sch.out"'
kill -TERM $XP; wait $XP
"$H" proxy --listen 127.0.0.1:$PX --upstream 127.0.0.1:$AA --api 127.0.0.1:$API --scenario "$T/s.scn" --mirror box9:9312 > "$T/bad.out" 2>&1; rc=$?
check "a mirror the scenario lacks: exit 3" '[ $rc -eq 3 ] && grep -q "box9:9312 is not a mirror" "$T/bad.out"'

[ $fail -ne 0 ] && { tail -n 5 "$T/px.out" "$T/sch.out" "$T/m/searchd.log"; cat "$T/promtool.out" 2>/dev/null; }
echo "cli_proxy: $pass passed, $fail failed"
[ $fail -eq 0 ]
