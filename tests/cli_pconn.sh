#!/usr/bin/env bash
# Persistent agents on the wire, against the real peer (Sphinx 2.2.11) and against hasim:
#  1. hareal replay over agent_persistent keeps one connection per mirror for one query at a
#     time (the mirrors' logs: one client port each), a plain agent one per query; under load
#     beyond the pool it falls back to plain connections, each counted, each in the logs;
#  2. a mirror killed and restarted mid-replay: the pooled connection is found closed and
#     replaced, the searches after the restart all answered (no failure from a dead socket);
#     resets through hareal proxy fail their own search only, each closing its connection;
#     hareal live's master pools as the replay does;
#  3. searchd 2.2.11 as master, agent_persistent over two hareal mirrors: one client keeps one
#     connection a mirror, as hasim predicts; four clients over a pool of 2 fall back to plain
#     connects at the rate hasim predicts for the same config and load (within a factor of 2),
#     a pool of 8 never runs out; an agent killed and restarted between two searches costs
#     searchd no failure, and hasim's model of it (a down fault) none either.
set -u
B=$1; S=$2
. "$S/tests/lib.sh"
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
needs cli_pconn searchd mysql curl
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
H="$B/hareal"
P=$(( 23000 + ($$ % 80) * 24 ))  # 23000-24943: below the ephemeral range, apart from other tests
peers() { tail -n +2 "$1" | cut -d, -f2 | sort -u | wc -l; }
rows() { tail -n +2 "$1" | wc -l; }
col() { awk -F, -v m="$2" -v c="$3" '$3 == m { print $c }' "$1"; }  # summary.csv: mirror's column
mirror() { # PORT LOG SERVICE [OPTION...]
  local port=$1 log=$2 svc=$3; shift 3
  "$H" mirror --listen 127.0.0.1:$port --service "$svc" --log "$log" --quiet "$@" & PIDS+=($!)
  wait_port "$port"
}
trace() { # N RATE: N queries at RATE/s
  { echo "t_s,table,query"; for q in $(seq 0 $(($1 - 1))); do
      awk -v q=$q -v r=$2 'BEGIN { printf "%.4f,d,q%d\n", q / r, q }'; done; } > "$T/t$1_$2.csv"
  echo "$T/t$1_$2.csv"
}
conf() { # KIND LIMIT PORTS...: a replay config, roundrobin over the ports
  local kind=$1 lim=$2 a=""; shift 2
  for p in "$@"; do a="$a|127.0.0.1:$p"; done
  printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0  persistent_connections_limit = %d }\ntable d {\n type = distributed\n %s = %s:s\n%s}\n' "$lim" "$kind" "${a#|}" "$([ $# -gt 1 ] && echo " ha_strategy = roundrobin")
"
}

# 1. replay: one connection per mirror, or one per query; fallbacks beyond the pool
mirror $P "$T/a1.csv" "constant(1ms)" --metrics 127.0.0.1:$((P+19)); mirror $((P+1)) "$T/a2.csv" "constant(1ms)"
wait_port $((P+19))
conf agent_persistent 2 $P $((P+1)) > "$T/p.conf"
"$H" replay --config "$T/p.conf" --trace "$(trace 200 200)" --out "$T/rp" --quiet --variant sphinx2; rc=$?
m1=127.0.0.1:$P; m2=127.0.0.1:$((P+1))
check "replay over persistent agents: 200 queries answered (rc $rc)" '[ $rc -eq 0 ] && [ $(grep -c ",ok," "$T/rp/queries.csv") -eq 200 ]'
check "one connection per mirror, in summary.csv and in the mirrors' logs ($(col "$T/rp/summary.csv" $m1 12), $(peers "$T/a1.csv"); $(col "$T/rp/summary.csv" $m2 12), $(peers "$T/a2.csv"))" '[ "$(col "$T/rp/summary.csv" $m1 12)" = 1 ] && [ "$(col "$T/rp/summary.csv" $m2 12)" = 1 ] && [ $(peers "$T/a1.csv") -eq 1 ] && [ $(peers "$T/a2.csv") -eq 1 ] && [ "$(col "$T/rp/summary.csv" $m1 13)" = 99 ]'
curl -s "http://127.0.0.1:$((P+19))/metrics" > "$T/a1.prom"
check "the mirror's /metrics: the master's one connection, made persistent (and the test's readiness probe)" 'grep -q "^hakarma_mirror_connections_persistent_total 1$" "$T/a1.prom" && grep -q "^hakarma_mirror_connections_accepted_total 2$" "$T/a1.prom"'
conf agent 2 $P $((P+1)) > "$T/n.conf"
"$H" replay --config "$T/n.conf" --trace "$T/t200_200.csv" --out "$T/rn" --quiet --variant sphinx2; rc=$?
check "a plain agent: a connection per query (100 each), no pool ($(col "$T/rn/summary.csv" $m1 12))" '[ $rc -eq 0 ] && [ "$(col "$T/rn/summary.csv" $m1 12)" = 100 ] && [ $(peers "$T/a1.csv") -eq 101 ] && [ "$(col "$T/rn/summary.csv" $m1 15)" = 0 ]'
mirror $((P+2)) "$T/b1.csv" "constant(20ms)"; mirror $((P+3)) "$T/b2.csv" "constant(20ms)"
conf agent_persistent 2 $((P+2)) $((P+3)) > "$T/f.conf"
"$H" replay --config "$T/f.conf" --trace "$(trace 400 400)" --out "$T/rf" --quiet; rc=$?
b1=127.0.0.1:$((P+2))
fb=$(col "$T/rf/summary.csv" $b1 15); cn=$(col "$T/rf/summary.csv" $b1 12); mi=$(col "$T/rf/summary.csv" $b1 14)
check "4 in flight a mirror over a pool of 2: $fb plain fallbacks of 200, $cn connections = $mi opened into slots + the fallbacks, as its log has them ($(peers "$T/b1.csv"))" '[ $rc -eq 0 ] && [ "$fb" -gt 20 ] && [ "$cn" -eq $((mi + fb)) ] && [ "$mi" -le 2 ] && [ $(peers "$T/b1.csv") -eq "$cn" ] && [ $(grep -c ",ok," "$T/rf/queries.csv") -eq 400 ]'

# 2. a mirror killed and restarted under a persistent replay
mirror $((P+4)) "$T/c1.csv" "constant(1ms)"; cpid=${PIDS[-1]}
conf agent_persistent 2 $((P+4)) > "$T/c.conf"
"$H" replay --config "$T/c.conf" --trace "$(trace 300 100)" --out "$T/rc" --quiet --variant sphinx2 & rpid=$!
sleep 1; kill -9 $cpid; wait $cpid 2>/dev/null; sleep 0.5
mirror $((P+4)) "$T/c2.csv" "constant(1ms)"
wait $rpid; rc=$?
after=$(rows "$T/c2.csv")
bad_after=$(awk -F, 'NR > 1 && $8 != "ok" { n++ } END { print n + 0 }' "$T/rc/queries.csv")
check "restarted mid-replay: the pooled connection replaced ($(peers "$T/c2.csv") new), the $after searches after it all answered; failures ($bad_after) only while it was away" '[ $rc -eq 0 ] && [ $(peers "$T/c2.csv") -eq 1 ] && [ "$after" -ge 100 ] && [ $((after + $(rows "$T/c1.csv") + bad_after)) -eq 300 ] && [ "$bad_after" -le 80 ]'

# 2b. resets through hareal proxy on pooled connections: each fails its search (a network
# error, as 2.2.11 counts a reset after the request) and closes its socket; the next search
# opens another, and nothing else fails
mirror $((P+13)) "$T/x1.csv" "constant(1ms)"
"$H" proxy --listen 127.0.0.1:$((P+14)) --upstream 127.0.0.1:$((P+13)) --api 127.0.0.1:$((P+20)) --name px --log "$T/px.csv" --seed 5 --quiet & PIDS+=($!)
wait_port $((P+14)); wait_port $((P+20))
curl -s -d '{"type":"reset","toxicity":0.1}' "http://127.0.0.1:$((P+20))/proxies/px/toxics" > /dev/null
conf agent_persistent 2 $((P+14)) > "$T/x.conf"
"$H" replay --config "$T/x.conf" --trace "$(trace 200 100)" --out "$T/rx" --quiet --variant sphinx2; rc=$?
x=127.0.0.1:$((P+14))
resets=$(grep -c ",reset$" "$T/px.csv"); ne=$(grep -c ",network_error," "$T/rx/queries.csv")
check "resets through the proxy on a pooled connection: $resets reset, $ne network errors, $(col "$T/rx/summary.csv" $x 12) connections (one, and one after each reset), the rest answered" '[ $rc -eq 0 ] && [ "$resets" -ge 5 ] && [ "$ne" -eq "$resets" ] && [ "$(col "$T/rx/summary.csv" $x 12)" -eq $((resets + 1)) ] && [ $(grep -c ",ok," "$T/rx/queries.csv") -eq $((200 - resets)) ]'

# 2c. hareal live's master keeps the pool too; a scenario's ring-stuck is said to be the
# simulator's only
cat > "$T/lv.scn" <<'EOF'
searchd { ha_period_karma = 2  ha_ping_interval = 0  persistent_connections_limit = 2 }
table d {
    type = distributed
    agent_persistent = m1:9312|m2:9312:s
    ha_strategy = roundrobin
}
mirror default { rtt = constant(0.1ms)  service = constant(1ms) }
workload { arrivals = constant(100/s)  duration = 2s }
sim { pool = ring-stuck }
EOF
"$H" live "$T/lv.scn" --out "$T/lv" --quiet > "$T/lv.out" 2>&1; rc=$?
check "hareal live over persistent agents: one connection a mirror ($(col "$T/lv/summary.csv" m1:9312 12), $(col "$T/lv/summary.csv" m2:9312 12)); ring-stuck said to be the simulator's" '[ $rc -eq 0 ] && [ "$(col "$T/lv/summary.csv" m1:9312 12)" = 1 ] && [ "$(col "$T/lv/summary.csv" m2:9312 12)" = 1 ] && grep -q "^hareal live: warning: .*lv.scn: pool = ring-stuck is the simulator.s only" "$T/lv.out"'

# 3. searchd 2.2.11 as master
sd() { # LIMIT PORT1 PORT2 I: master I (SphinxQL on P+15+I), agent_persistent over two mirrors
  mkdir -p "$T/sd$4"
  { printf 'index dist\n{\n    type = distributed\n    agent_persistent = 127.0.0.1:%d:s|127.0.0.1:%d:s\n    ha_strategy = roundrobin\n}\n' "$2" "$3"
    sd_master "$T/sd$4" $((P + 15 + $4)) 2 0 |
      sed "s/^\(    ha_ping_interval.*\)$/\1\n    persistent_connections_limit = $1/"; } > "$T/sd$4/sd.conf"
  searchd --config "$T/sd$4/sd.conf" --nodetach > "$T/sd$4/out" 2>&1 & PIDS+=($!)
  wait_port $((P + 15 + $4))
}
load() { # CLIENTS N SQLPORT: CLIENTS clients sending N searches each, back to back
  local ps=()
  for _ in $(seq "$1"); do
    (for _ in $(seq "$2"); do echo "SELECT * FROM dist;"; done | mysql -h127.0.0.1 -P"$3" -N -B > /dev/null 2>&1) & ps+=($!)
  done
  wait "${ps[@]}"
}
model() { # LIMIT CLIENTS SECONDS [FAULT]: hasim's connects per 200 searches of the first mirror
  cat > "$T/m.scn" <<EOF
searchd { ha_period_karma = 2  ha_ping_interval = 0  persistent_connections_limit = $1 }
table dist {
    type  = distributed
    agent_persistent = m1:9312|m2:9312:s
    ha_strategy = roundrobin
}
# hareal mirror's constant(1ms) is a libuv timer of millisecond resolution: 1 to 2 ms
mirror default { rtt = constant(0.1ms)  service = uniform(1ms, 2ms) }
workload { clients = $2  think = constant(0.3ms)  duration = $3s }
sim { variant = sphinx2 }
${4:-}
EOF
  "$B/hasim" "$T/m.scn" --out "$T/m" --quiet --force --queries > /dev/null 2>&1 || return 1
  awk -F, 'NR == 2 { printf "%.2f", 200 * $12 / $4 }' "$T/m/summary.csv"
}
per200() { awk -v c="$(peers "$1")" -v n="$(rows "$1")" 'BEGIN { printf "%.2f", n ? 200 * c / n : -1 }'; }
mirror $((P+5)) "$T/d1.csv" "constant(1ms)"; mirror $((P+6)) "$T/d2.csv" "constant(1ms)"
sd 2 $((P+5)) $((P+6)) 0
load 1 200 $((P+15))
sim1=$(model 2 1 2)
check "searchd, one client: one connection a mirror ($(peers "$T/d1.csv"), $(peers "$T/d2.csv")); hasim: $sim1 per 200 (1 over the run)" '[ $(peers "$T/d1.csv") -eq 1 ] && [ $(peers "$T/d2.csv") -eq 1 ] && [ "$(awk -F, "NR == 2 { print \$12 }" "$T/m/summary.csv")" = 1 ]'
if [ -z "${HK_SANITIZED:-}" ]; then  # a measurement of timing: not under the sanitizers' mirrors
  mirror $((P+7)) "$T/e1.csv" "constant(1ms)"; mirror $((P+8)) "$T/e2.csv" "constant(1ms)"
  sd 2 $((P+7)) $((P+8)) 1
  load 4 1000 $((P+16))
  real=$(per200 "$T/e1.csv"); sim=$(model 2 4 4)
  echo "cli_pconn: four clients over a pool of 2: searchd opened $real connections per 200 searches, hasim predicts $sim"
  check "searchd, four clients over a pool of 2: $real connections per 200 searches of a mirror; hasim predicts $sim (within a factor of 2)" 'awk -v r="$real" -v s="$sim" "BEGIN { exit !(r > 1 && s > 1 && r <= 2 * s && s <= 2 * r) }"'
  mirror $((P+9)) "$T/g1.csv" "constant(1ms)"; mirror $((P+10)) "$T/g2.csv" "constant(1ms)"
  sd 8 $((P+9)) $((P+10)) 2
  load 4 250 $((P+17))
  sim8=$(model 8 4 2); c8=$(awk -F, 'NR == 2 { print $12 }' "$T/m/summary.csv")
  check "a pool of 8 never runs out: searchd opened $(peers "$T/g1.csv") and $(peers "$T/g2.csv") (at most the 4 clients), hasim $c8" '[ $(peers "$T/g1.csv") -le 4 ] && [ $(peers "$T/g2.csv") -le 4 ] && [ "$c8" -le 4 ] && [ "$c8" -ge 1 ]'
fi
# an agent killed and restarted between two searches
mirror $((P+11)) "$T/h1.csv" "constant(1ms)"; hpid=${PIDS[-1]}; mirror $((P+12)) "$T/h2.csv" "constant(1ms)"
sd 2 $((P+11)) $((P+12)) 3
q() { mysql -h127.0.0.1 -P$((P+18)) -N -B -e "SELECT * FROM dist; SHOW META" 2>&1; }
for _ in 1 2 3 4; do q > /dev/null; done
kill -9 $hpid; wait $hpid 2>/dev/null
mirror $((P+11)) "$T/h1b.csv" "constant(1ms)"
out=$(for _ in 1 2 3 4; do q; done)
model 2 1 2 "fault m1:9312 { at = 1s  for = 0.2s  kind = down }" > /dev/null
ne=$(awk -F, 'NR == 2 { print $6 }' "$T/m/summary.csv")
check "searchd: the searches after the agent's restart answered without a warning, on a new connection ($(peers "$T/h1b.csv")); hasim's model of it: no failure after the fault ($ne failed, all during it)" '! grep -qi "warning\|error" <<< "$out" && [ $(rows "$T/h1b.csv") -eq 2 ] && [ $(peers "$T/h1b.csv") -eq 1 ] && [ -n "$ne" ] && [ -s "$T/m/queries.csv" ] && [ "$(awk -F, "NR > 1 && \$3 >= 1.25 && \$8 != \"ok\"" "$T/m/queries.csv" | wc -l)" -eq 0 ] && [ "$ne" -gt 0 ]'

echo "cli_pconn: $pass passed, $fail failed"
[ $fail -eq 0 ]
