#!/bin/bash
# Issue 37's whole path, from a real incident to its model: a real Sphinx 2.2.11 master
# (noerrors, karma 2 s, ping 500 ms) over three hareal mirrors answering in 4, 6 and 9 ms and a
# real 2.2.11 agent behind `hareal proxy` (a 5 ms latency toxic from the start); 12 mysql clients
# stream searches; SHOW AGENT STATUS is saved every karma period. Over the proxy's HTTP API, as
# an operator rehearsing would: the agent stuck (searches hang, pings answered), an ERROR burst
# (30% of its searches), down (its port closed), then slow (latency 5 -> 25 ms), 6 s each.
# `hasim init --status DIR --log` must find each with its kind, within one karma period of its
# start and end; the model's per-window shares within 10 points of what the mirrors and the
# proxy logged outside the first window; its p99 and p99.9 within 20% of the master's log.
# Not under the sanitizers: the recording is a measurement, and their slowdown skews it (the
# same code runs under them in cli_incident and cli_proxy).
B=${1:?build dir}; S=${2:?source dir}
. "$S/tests/lib.sh"
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
needs cli_incident_proxy searchd mysql curl
if [ -n "${HK_SANITIZED:-}" ]; then echo "cli_incident_proxy: a measurement, not run under the sanitizers"; exit 77; fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] && { echo "kept $T"; return; }; rm -rf "$T"; }
trap cleanup EXIT
P=$(( 16000 + ($$ % 80) * 10 ))  # 16000-16790: below the ephemeral range, apart from other tests
M1=$P; M2=$((P+1)); M3=$((P+2)); QL=$((P+3)); AG=$((P+4)); AGQ=$((P+5)); PX=$((P+6)); API=$((P+7))
now() { date +%s.%N; }
api() { curl -s -o /dev/null -w "%{http_code}" "$@"; }

for i in 1 2 3; do ms=(0 4 6 9)
  "$B/hareal" mirror --listen 127.0.0.1:$((P + i - 1)) --service "constant(${ms[$i]}ms)" --log "$T/m$i.csv" --quiet & PIDS+=($!)
done
mkdir -p "$T/prod" "$T/snap" "$T/ag"
sd_agent "$T/ag" shard $AG $AGQ > "$T/ag.conf"
cat > "$T/prod.conf" <<CONF
index d
{
    type        = distributed
    agent       = 127.0.0.1:$M1|127.0.0.1:$M2|127.0.0.1:$M3|127.0.0.1:$PX:shard
    ha_strategy = noerrors
}
CONF
sd_master "$T/prod" $QL 2 500 >> "$T/prod.conf"
searchd --config "$T/ag.conf" --nodetach > "$T/ag.out" 2>&1 & PIDS+=($!)
wait_port $AGQ
mysql -h127.0.0.1 -P$AGQ -e "INSERT INTO shard (id, title, gid) VALUES (1,'load one',1),(2,'load two',2)"
"$B/hareal" proxy --listen 127.0.0.1:$PX --upstream 127.0.0.1:$AG --api 127.0.0.1:$API --name ag --log "$T/px.csv" > "$T/px.out" 2>&1 & PIDS+=($!)
wait_port $API; wait_port $M1; wait_port $M2; wait_port $M3
check "the agent's base latency set (5 ms)" '[ "$(api -d "{\"name\":\"base\",\"type\":\"latency\",\"attributes\":{\"latency\":5}}" 127.0.0.1:$API/proxies/ag/toxics)" = 200 ]'
searchd --config "$T/prod.conf" --nodetach > "$T/prod/searchd.out" 2>&1 & PIDS+=($!)
wait_port $QL; sleep 1  # pings: every mirror alive before the load

( while :; do t=$(now); mysql -h127.0.0.1 -P$QL -B -e "SHOW AGENT STATUS" > "$T/snap/.next" 2>&1 &&
    mv "$T/snap/.next" "$T/snap/status.$t.tsv"; sleep 2; done ) & scrape=$!; PIDS+=($scrape)
LOADS=(); for _ in $(seq 12); do
  yes "SELECT * FROM d WHERE MATCH('load');" | timeout 56 mysql -h127.0.0.1 -P$QL --force > /dev/null 2>&1 & LOADS+=($!); PIDS+=($!)
done
# the faults, 6 s each, 6 s apart; each edge's time as the operator's curl returned
sleep 6;  t_stuck=$(now);   api -d '{"type":"stuck"}' 127.0.0.1:$API/proxies/ag/toxics > "$T/c1"
sleep 6;  t_stuck_e=$(now); api -X DELETE 127.0.0.1:$API/proxies/ag/toxics/stuck_downstream > "$T/c2"
sleep 6;  t_err=$(now);     api -d '{"type":"errors","toxicity":0.3}' 127.0.0.1:$API/proxies/ag/toxics > "$T/c3"
sleep 6;  t_err_e=$(now);   api -X DELETE 127.0.0.1:$API/proxies/ag/toxics/errors_downstream > "$T/c4"
sleep 6;  t_down=$(now);    api -X POST -d '{"enabled":false}' 127.0.0.1:$API/proxies/ag > "$T/c5"
sleep 6;  t_down_e=$(now);  api -X POST -d '{"enabled":true}' 127.0.0.1:$API/proxies/ag > "$T/c6"
sleep 6;  t_slow=$(now);    api -X POST -d '{"attributes":{"latency":25}}' 127.0.0.1:$API/proxies/ag/toxics/base > "$T/c7"
sleep 6;  t_slow_e=$(now);  api -X POST -d '{"attributes":{"latency":5}}' 127.0.0.1:$API/proxies/ag/toxics/base > "$T/c8"
wait "${LOADS[@]}"; sleep 2.5  # one more snapshot after the load
kill $scrape 2>/dev/null
check "the proxy took every fault (200, 204 for a removed toxic)" '[ "$(cat "$T"/c[1-8] | tr -d "\n")" = "200204200204200200200200" ]'

nsnap=$(ls "$T/snap" | wc -l)
check "the scrape saved a snapshot per karma period ($nsnap)" '[ "$nsnap" -ge 25 ]'
"$B/hasim" init --config "$T/prod.conf" --status "$T/snap" --log "$T/prod/query.log" --searchd-log "$T/prod/searchd.log" --out "$T/model.scn" > "$T/init.out" 2> "$T/init.err"
check "init reads the series, the log and searchd's start" '[ $? -eq 0 ] && grep -q "^incident: $nsnap snapshots" "$T/init.out"'
# the simulated run starts at the log's first search: the real edges relative to it
t0=$(head -1 "$T/prod/query.log" | sed -n 's|^/\* \([^*]*[0-9]\{4\}\) conn .* real \([0-9.]*\) .*|\1 \2|p' |
     awk '{ r = $NF; $NF = ""; cmd = "date -d \"" $0 "\" +%s.%N"; cmd | getline s; close(cmd); printf "%.3f", s - r }')
rel() { awk -v a="$1" -v t0="$t0" 'BEGIN { printf "%.2f", a - t0 }'; }
# one fault of the kind at its time: start and end within a karma period (2 s) of the real ones
near() {  # kind-regex real-start real-end
  local fl at for
  fl=$(grep "^fault 127.0.0.1:$PX { .*kind = $1" "$T/model.scn" | head -1)
  at=$(echo "$fl" | sed -n 's/.* at = \([0-9.]*\)s .*/\1/p'); for=$(echo "$fl" | sed -n 's/.* for = \([0-9.]*\)s .*/\1/p')
  echo "model ${at:-none}+${for:-none} s, real $(rel $2) to $(rel $3) s"
  [ -n "$at" ] && awk -v at="$at" -v f="$for" -v s="$(rel $2)" -v e="$(rel $3)" \
    'BEGIN { d1 = at - s; d2 = at + f - e; exit !(d1 < 2 && d1 > -2 && d2 < 2 && d2 > -2) }'
}
for f in "stuck $t_stuck $t_stuck_e" "errors( $t_err $t_err_e" "down $t_down $t_down_e" "slow( $t_slow $t_slow_e"; do
  set -- $f; k=$1; r=$(near "$k" $2 $3); rc=$?
  check "$k: found within a karma period of its start and end ($r)" '[ $rc -eq 0 ]'
done
others=$(grep "^fault " "$T/model.scn" | grep -vc "^fault 127.0.0.1:$PX ")
check "no fault on the healthy mirrors ($others)" '[ "$others" -eq 0 ]'
check "every fault init reports is in the scenario" '[ $(grep -c "^  127.0.0.1:[0-9]* [a-z]* from" "$T/init.out") -le $(grep -c "^fault " "$T/model.scn") ]'
"$B/hasim" "$T/model.scn" --out "$T/sim" --queries --quiet 2> "$T/sim.err"
check "the model runs" '[ $? -eq 0 ] && [ -s "$T/sim/timeline.csv" ]'

# per 2 s window, each mirror's share of the answered searches: the mirrors' and the proxy's logs
# against the model's timeline; the cold start apart: window 0 (cold connects, weights on a few
# first answers) and window 1, whose re-weighting rests on them (two runs: 10.7 and 12.2 points
# off even against its neighbours' range; cli_incident leaves window 0 out for the same reason)
for i in 1 2 3 4; do f="$T/m$i.csv"; [ $i = 4 ] && f="$T/px.csv"
  awk -F, -v t0=$t0 -v i=$i '$1 ~ /^[0-9]/ && $NF == "ok" {w = int(($1 - t0) / 2); if (w >= 0) print w, i}' "$f"
done | awk '{n[$1, $2]++; all[$1]++} END {for (k in all) for (i = 1; i <= 4; i++) printf "%d %d %.4f %d\n", k, i, n[k, i] / all[k], all[k]}' | sort -n > "$T/real.win"
awk -F, -v m1=127.0.0.1:$M1 -v m2=127.0.0.1:$M2 -v m3=127.0.0.1:$M3 -v m4=127.0.0.1:$PX 'NR > 1 {
    i = $4 == m1 ? 1 : $4 == m2 ? 2 : $4 == m3 ? 3 : $4 == m4 ? 4 : 0; if (!i) next
    w = int($5 / 2); n[w, i] += $6 - $7; all[w] += $6 - $7 }
  END {for (k in all) for (i = 1; i <= 4; i++) printf "%d %d %.4f %d\n", k, i, all[k] ? n[k, i] / all[k] : 0, all[k]}' "$T/sim/timeline.csv" | sort -n > "$T/sim.win"
join <(awk '{print $1 "_" $2, $3, $4}' "$T/real.win" | sort) <(awk '{print $1 "_" $2, $3, $4}' "$T/sim.win" | sort) |
  awk '$3 >= 100 && $5 >= 100' | sed 's/_/ /' | sort -n > "$T/both.win"
# The model's timeline counts a search when it is sent and its failure when it is counted: a
# stuck mirror's timeouts land a query timeout (3 s) after their searches, so from the stuck
# fault's start to a query timeout and a window past its end the model's answered shares are
# its bookkeeping, not its behaviour: those windows are left out (said).
skip=$(sed -n 's/^fault [^ ]* { at = \([0-9.]*\)s  for = \([0-9.]*\)s  kind = stuck }.*/\1 \2/p' "$T/model.scn" |
       awk '{for (w = int($1 / 2); w <= int(($1 + $2 + 3) / 2) + 1; w++) printf "%d ", w}')
# The windows holding each other fault's edges, and the one after (two after an end: the
# readmission waits for a ping and a re-weighting; a run saw 2.2.11 take a mirror back 2 s
# after the model did), hang on sub-second timing (cli_incident): there the model's share is
# held within 10 points of the range searchd's spans over the window and its neighbours.
edges=$(sed -n 's/^fault [^ ]* { at = \([0-9.]*\)s  for = \([0-9.]*\)s  kind = [^s].*/\1 \2/p' "$T/model.scn" |
        awk '{a = int($1 / 2); b = int(($1 + $2) / 2); printf "%d %d %d %d %d ", a, a + 1, b, b + 1, b + 2}')
awk -v skip="$skip" -v edges="$edges" 'BEGIN {n = split(skip, s, " "); for (i = 1; i <= n; i++) out[s[i]] = 1
    n = split(edges, e, " "); for (i = 1; i <= n; i++) edge[e[i]] = 1}
  {r[$1, $2] = $3; m[$1, $2] = $5; have[$1, $2] = 1; w[$1] = 1}
  END {for (k in w) if (k > 1 && !(k in out)) for (i = 1; i <= 4; i++) {
      if (!have[k, i]) continue
      lo = hi = r[k, i]
      if (k in edge) for (j = k - 1; j <= k + 1; j++) if (have[j, i]) {
          if (r[j, i] < lo) lo = r[j, i]; if (r[j, i] > hi) hi = r[j, i] }
      d = m[k, i] < lo ? lo - m[k, i] : m[k, i] > hi ? m[k, i] - hi : 0
      printf "%d %d %s %.4f\n", k, i, (k in edge) ? "edge" : "steady", d }}' "$T/both.win" | sort -n > "$T/cmp.win"
nwin=$(cut -d' ' -f1 "$T/cmp.win" | sort -u | wc -l)
worst=$(awk '$4 >= w {w = $4; at = $1 " mirror " $2 " " $3} END {printf "%.3f (window %s)", w, at}' "$T/cmp.win")
check "per-window shares of $nwin windows within 10 points of what the mirrors logged (worst $worst; edges $edges against their neighbours; the stuck fault's windows $skip left out)" '[ "$nwin" -ge 18 ] && [ -n "$skip" ] && awk "\$4 > 0.10 {bad = 1} END {exit bad}" "$T/cmp.win"'

# The tail, p99 and p99.9 of the answered searches' agent time within 20% of the log's (of the
# interval its sample size gives it, below), outside
# the stuck fault's span (from its start to a query timeout and a window past its end: there
# how many searches the model holds hangs on whether their timeouts beat a re-weighting by
# milliseconds, as for the shares above; a run: p99.9 68x the log's) and the slow one's (the
# proxy adds 20 ms to each reply, where slow(F) multiplies the agent's time, spread included:
# a run gave p99.9 44 ms against 28).
span=$( (sed -n 's/^fault [^ ]* { at = \([0-9.]*\)s  for = \([0-9.]*\)s  kind = stuck }.*/\1 \2/p' "$T/model.scn" | awk '{printf "%.3f %.3f ", $1, $1 + $2 + 3 + 2}'
        sed -n 's/^fault [^ ]* { at = \([0-9.]*\)s  for = \([0-9.]*\)s  kind = slow(.*/\1 \2/p' "$T/model.scn" | awk '{printf "%.3f %.3f ", $1 - 2, $1 + $2 + 2}') )
sed -n 's|^/\* [A-Z][a-z]* \([A-Z][a-z]*\) *\([0-9]*\) \([0-9:]*\)\.\([0-9]*\) \([0-9]*\) conn .* real \([0-9.]*\) [^*]*\*/ [^;]*; /\* agents=(\([0-9.]*\)) \*/$|\1 \2 \3 \4 \5 \6 \7|p' "$T/prod/query.log" |
  awk -v t0="$t0" -v span="$span" 'BEGIN {split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " "); for (i = 1; i <= 12; i++) mon[m[i]] = i; ns = split(span, sp, " ")}
    {split($3, hms, ":"); t = mktime($5 " " mon[$1] " " $2 " " hms[1] " " hms[2] " " hms[3]) + ("0." $4) - $6 - t0
     for (i = 1; i < ns; i += 2) if (t >= sp[i] && t <= sp[i + 1]) next; printf "%.3f\n", $7 * 1000}' | sort -n > "$T/log.tail"
awk -F, -v span="$span" 'BEGIN {ns = split(span, sp, " ")} NR > 1 && $8 == "ok" {for (i = 1; i < ns; i += 2) if ($3 >= sp[i] && $3 <= sp[i + 1]) next; print $9}' "$T/sim/queries.csv" | sort -n > "$T/sim.tail"
pq() { awk -v p="$1" '{x[NR] = $1} END {k = (NR - 1) * p / 100; f = int(k); printf "%.3f", NR ? x[f + 1] + (x[f + 2 > NR ? NR : f + 2] - x[f + 1]) * (k - f) : 0}' "$2"; }
# A quantile as the interval its sample size allows (distribution-free: the order statistics
# 3.29 binomial sd either side, a 0.1% false alarm from sampling alone), the log's and the
# model's each: a p99.9 rests on the ~50 slowest of ~50,000 searches (the log's to the
# millisecond), and four runs of the same incident on this VM logged 14, 15, 17 and 18 ms.
# "lo hi" for quantile $1 of the sorted file $2; the two within 20% where their intervals are.
pci() { awk -v p="$1" '{x[NR] = $1} END {c = NR * p / 100; d = 3.29 * sqrt(NR * p / 100 * (1 - p / 100))
          lo = int(c - d); hi = int(c + d) + 1; if (lo < 1) lo = 1; if (hi > NR) hi = NR
          printf "%.3f %.3f", x[lo], x[hi]}' "$2"; }
tails="log p99 $(pq 99 "$T/log.tail") [$(pci 99 "$T/log.tail")] p99.9 $(pq 99.9 "$T/log.tail") [$(pci 99.9 "$T/log.tail")] ($(wc -l < "$T/log.tail") searches), model p99 $(pq 99 "$T/sim.tail") [$(pci 99 "$T/sim.tail")] p99.9 $(pq 99.9 "$T/sim.tail") [$(pci 99.9 "$T/sim.tail")] ($(wc -l < "$T/sim.tail"))"
check "the tail outside the stuck and slow spans ($span s) within 20% (each quantile's interval): $tails" '[ $(echo $span | wc -w) -eq 4 ] && [ $(wc -l < "$T/log.tail") -gt 10000 ] && (for q in 99 99.9; do awk -v m="$(pci $q "$T/sim.tail")" -v i="$(pci $q "$T/log.tail")" "BEGIN {split(m, a, \" \"); split(i, b, \" \"); exit !(b[1] > 0 && a[2] >= 0.8 * b[1] && a[1] <= 1.2 * b[2])}" || exit 1; done)'
echo "cli_incident_proxy: $tails"
if [ "$fail" -ne 0 ]; then cat "$T/init.out" "$T/init.err"; grep "^fault\|^# *-\?[0-9]" "$T/model.scn" | head -60; cat "$T/both.win" | awk '$1 > 0' | head -120; fi

echo "cli_incident_proxy: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
