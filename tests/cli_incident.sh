#!/bin/bash
# A recorded incident replayed: a real Sphinx 2.2.11 master (nodeads, karma 2 s) over three
# hareal mirrors answering in 4, 6 and 9 ms, loaded by one mysql client streaming searches; its
# SHOW AGENT STATUS saved every karma period as status.EPOCH.tsv, as a cron scrape would; the
# middle mirror killed 10 s in and restarted 10 s later. `hasim init --status DIR` must find the
# fault (down, at its time within one karma period, for its length within one karma period),
# and the generated scenario's run must give per-window shares within 3.5 standard errors of the
# two windows' counts (5 points at least), and pooled over the steady windows within 5 points, of what the
# mirrors really answered (around the fault's edges: within one window either way).
B=${1:?build dir}; S=${2:?source dir}
. "$S/tests/lib.sh"
if ! command -v searchd > /dev/null || ! command -v mysql > /dev/null; then
  if [ "${CI:-}" = true ]; then echo "cli_incident: searchd or mysql missing: 0 passed, 1 failed"; exit 1; fi
  echo "cli_incident: searchd/mysql not installed (.ci/setup installs them): skipped"; exit 77
fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] && { echo "kept $T"; return; }; rm -rf "$T"; }
trap cleanup EXIT
P=$(( 13000 + ($$ % 95) * 10 ))  # 13000-13950: below the ephemeral range, apart from other tests
M1=$P; M2=$((P+1)); M3=$((P+2)); QL=$((P+3))
now() { date +%s.%N; }
mirror() { exec "$B/hareal" mirror --listen 127.0.0.1:$1 --service "constant($2ms)" --log "$3" --quiet; }

mirror $M1 4 "$T/m1.csv" & PIDS+=($!)
mirror $M2 6 "$T/m2.csv" & m2=$!; PIDS+=($m2)
mirror $M3 9 "$T/m3.csv" & PIDS+=($!)
mkdir -p "$T/prod" "$T/snap"
cat > "$T/prod.conf" <<CONF
index d
{
    type        = distributed
    agent       = 127.0.0.1:$M1|127.0.0.1:$M2|127.0.0.1:$M3:shard
    ha_strategy = nodeads
}
CONF
sd_master "$T/prod" $QL 2 500 >> "$T/prod.conf"
wait_port $M1; wait_port $M2; wait_port $M3
searchd --config "$T/prod.conf" --nodetach > "$T/prod/searchd.out" 2>&1 & PIDS+=($!)
wait_port $QL; sleep 1  # pings: every mirror alive before the load

# the scrape: one snapshot per karma period, named with the time it was taken
( while :; do t=$(now); mysql -h127.0.0.1 -P$QL -B -e "SHOW AGENT STATUS" > "$T/snap/.next" 2>&1 &&
    mv "$T/snap/.next" "$T/snap/status.$t.tsv"; sleep 2; done ) & scrape=$!; PIDS+=($scrape)
CLIENTS=12  # about 1500 searches a second: over 2500 a window, shares sampled to a point or so
LOADS=(); for _ in $(seq $CLIENTS); do
  yes "SELECT * FROM d WHERE MATCH('load');" | timeout 31 mysql -h127.0.0.1 -P$QL --force > /dev/null 2>&1 & LOADS+=($!); PIDS+=($!)
done
sleep 10; kill_t=$(now); kill $m2; wait $m2 2>/dev/null
sleep 10; back_t=$(now); mirror $M2 6 "$T/m2b.csv" & PIDS+=($!)
wait "${LOADS[@]}"; sleep 2.5  # one more snapshot after the load
kill $scrape 2>/dev/null

nsnap=$(ls "$T/snap" | wc -l)
check "the scrape saved a snapshot per karma period ($nsnap)" '[ "$nsnap" -ge 14 ]'
"$B/hasim" init --config "$T/prod.conf" --status "$T/snap" --log "$T/prod/query.log" --searchd-log "$T/prod/searchd.log" --out "$T/model.scn" > "$T/init.out" 2> "$T/init.err"
check "init reads the series and when searchd started" '[ $? -eq 0 ] && grep -q "^incident: $nsnap snapshots" "$T/init.out" && grep -q "^sim {.*  started = $(date -d "$(sed -n "s/^\[\([^]]*\)\] \[ *[0-9]*\] accepting connections/\1/p" "$T/prod/searchd.log" | tail -1)" +%s) }" "$T/model.scn"'
# the simulated run starts at the trace's first query: the fault's times are relative to it
t0=$(awk -F, 'NR > 1 && $1 ~ /^[0-9]/ {print $1; exit}' "$T/m1.csv")
for f in m2 m3; do t=$(awk -F, 'NR > 1 && $1 ~ /^[0-9]/ {print $1; exit}' "$T/$f.csv"); t0=$(awk -v a=$t0 -v b=$t 'BEGIN {print (b < a ? b : a)}'); done
fl=$(grep "^fault 127.0.0.1:$M2 " "$T/model.scn")
at=$(echo "$fl" | sed -n 's/.* at = \([0-9.]*\)s .*/\1/p'); for=$(echo "$fl" | sed -n 's/.* for = \([0-9.]*\)s .*/\1/p')
check "one fault, on the killed mirror" '[ $(grep -c "^fault " "$T/model.scn") -eq 1 ] && echo "$fl" | grep -q "kind = down"'
check "it starts within a karma period of the kill (at $at s, killed at $(awk -v a=$kill_t -v b=$t0 'BEGIN {printf "%.2f", a - b}') s)" 'awk -v at="$at" -v k=$kill_t -v t0=$t0 "BEGIN {d = at - (k - t0); exit !(at != \"\" && d < 2 && d > -2)}"'
check "it ends within a karma period of the restart (for $for s, down $(awk -v a=$kill_t -v b=$back_t 'BEGIN {printf "%.2f", b - a}') s)" 'awk -v at="$at" -v f="$for" -v b=$back_t -v t0=$t0 "BEGIN {d = at + f - (b - t0); exit !(f != \"\" && d < 2 && d > -2)}"'
"$B/hasim" "$T/model.scn" --out "$T/sim" --quiet 2> "$T/sim.err"
check "the model runs" '[ $? -eq 0 ] && [ -s "$T/sim/timeline.csv" ]'

# per 2 s window: each mirror's share of the answered queries, the mirrors' logs against the run
cat "$T/m2.csv" "$T/m2b.csv" > "$T/m2all.csv" 2>/dev/null
for i in 1 2 3; do f="$T/m$i.csv"; [ $i = 2 ] && f="$T/m2all.csv"
  awk -F, -v t0=$t0 -v i=$i '$1 ~ /^[0-9]/ {w = int(($1 - t0) / 2); print w, i}' "$f"
done | awk '{n[$1, $2]++; all[$1]++} END {for (k in all) for (i = 1; i <= 3; i++) printf "%d %d %.4f %d\n", k, i, n[k, i] / all[k], all[k]}' | sort -n > "$T/real.win"
awk -F, -v m1=127.0.0.1:$M1 -v m2=127.0.0.1:$M2 -v m3=127.0.0.1:$M3 'NR > 1 {
    i = $4 == m1 ? 1 : $4 == m2 ? 2 : $4 == m3 ? 3 : 0; if (!i) next
    w = int($5 / 2); n[w, i] += $6 - $7; all[w] += $6 - $7 }
  END {for (k in all) for (i = 1; i <= 3; i++) printf "%d %d %.4f %d\n", k, i, all[k] ? n[k, i] / all[k] : 0, all[k]}' "$T/sim/timeline.csv" | sort -n > "$T/sim.win"
# the windows both have in full (the last one of each is cut by the end of the load)
join <(awk '{print $1 "_" $2, $3, $4}' "$T/real.win" | sort) <(awk '{print $1 "_" $2, $3, $4}' "$T/sim.win" | sort) |
  awk '$3 >= 100 && $5 >= 100' | sed 's/_/ /' | sort -n > "$T/both.win"
# Steady windows must agree within 3.5 standard errors (5 points at least). Window 0 is not compared: searchd's first
# re-weighting falls on its first few answers, which pay cold connects (21-34 ms seen against
# 4-9 ms), and whether any had come back by then swings a mirror from 1/3 to 0.9 or 0.05 - in
# the model as in searchd, on milliseconds no snapshot records. The window holding each fault
# edge and the one after it hang on sub-second timing too (whether the mirror's next ping and
# the line's re-weighting second fall before or after the edge moves a share by up to 20
# points); they are held to the issue's bound for edges, one karma period: the model's share
# within 5 points of the range searchd's shares span over the window and its neighbours.
# (the edges as the mirror's own logs place them: its last answer before the kill, its first after)
lastans=$(awk -F, '$1 ~ /^[0-9]/ {t = $1} END {print t}' "$T/m2.csv")
firstans=$(awk -F, 'NR > 1 && $1 ~ /^[0-9]/ {print $1; exit}' "$T/m2b.csv")
kw=$(awk -v k=$lastans -v b=$firstans -v t0=$t0 'BEGIN {x = int((k - t0) / 2); y = int((b - t0) / 2); print x, x + 1, y, y + 1}')
# ... and the windows holding the model's own edges (init places them within a karma period of
# searchd's; a window either side of an edge hangs on that placement, as searchd's do)
kw="$kw $(sed -n 's/^fault [^ ]* { at = \([0-9.]*\)s  for = \([0-9.]*\)s .*/\1 \2/p' "$T/model.scn" | awk '{a = int($1 / 2); b = int(($1 + $2) / 2); printf "%d %d %d %d ", a, a + 1, b, b + 1}')"
echo "kill $kill_t back $back_t t0 $t0 last $lastans first $firstans" > "$T/times"
awk -v edges="$kw" '
  BEGIN {n = split(edges, e, " "); for (i = 1; i <= n; i++) edge[e[i]] = 1}
  $1 == 0 {next}
  {r[$1, $2] = $3; m[$1, $2] = $5; have[$1, $2] = 1; w[$1] = 1
   # the two windows sample ~100-150 queries each: 3.5 standard errors of the difference of
   # their shares (33 comparisons: ~1.5% false alarms together), 5 points at least
   se = sqrt($3 * (1 - $3) * (1 / $4 + 1 / $6)); tol[$1, $2] = 3.5 * se > 0.05 ? 3.5 * se : 0.05}
  END {for (k in w) for (i = 1; i <= 3; i++) {
      if (!have[k, i]) continue
      lo = hi = r[k, i]
      if (k in edge) for (j = k - 1; j <= k + 1; j++) if (have[j, i]) {
          if (r[j, i] < lo) lo = r[j, i]; if (r[j, i] > hi) hi = r[j, i] }
      d = m[k, i] < lo ? lo - m[k, i] : m[k, i] > hi ? m[k, i] - hi : 0
      printf "%d %d %s %.4f %.4f\n", k, i, (k in edge) ? "edge" : "steady", d, tol[k, i] }}' "$T/both.win" | sort -n > "$T/dist.win"
nsteady=$(awk '$3 == "steady"' "$T/dist.win" | cut -d' ' -f1 | sort -u | wc -l)
worst=$(awk '$3 == "steady" && $4 >= w {w = $4; at = $1 " mirror " $2} END {printf "%.3f (window %s)", w, at}' "$T/dist.win")
worste=$(awk '$3 == "edge" && $4 >= w {w = $4; at = $1 " mirror " $2} END {printf "%.3f (window %s)", w, at}' "$T/dist.win")
check "per-window shares of $nsteady steady windows within 3.5 standard errors (5 points at least) of searchd's (worst $worst)" '[ "$nsteady" -ge 9 ] && awk "\$3 == \"steady\" && \$4 > \$5 {bad = 1} END {exit bad}" "$T/dist.win"'
check "the edge windows ($kw) within that of searchd's one window either way (worst $worste)" '[ -n "$lastans" ] && [ -n "$firstans" ] && awk "\$3 == \"edge\" && \$4 > \$5 {bad = 1} END {exit bad}" "$T/dist.win"'
# pooled over the steady windows (~1,300 queries) the shares must agree within 5 points
pooled=$(awk -v edges="$kw" 'BEGIN {n = split(edges, e, " "); for (i = 1; i <= n; i++) edge[e[i]] = 1}
  $1 == 0 || ($1 in edge) {next} {rn[$2] += $3 * $4; ra += $4 / 3; sn[$2] += $5 * $6; sa += $6 / 3}
  END {w = 0; for (i = 1; i <= 3; i++) {d = rn[i] / ra - sn[i] / sa; d = d < 0 ? -d : d; if (d > w) w = d}; printf "%.3f", w}' "$T/both.win")
check "steady windows pooled: every mirror's share within 5 points of searchd's (worst $pooled)" '[ -n "$pooled" ] && awk -v p="$pooled" "BEGIN {exit !(p <= 0.05)}"'
# the windows where the killed mirror answered (almost) nothing, in each
dead=$(awk '$2 == 2 && $4 >= 100 && $3 < 0.02 {print $1}' "$T/real.win" | sort -n | tr '\n' ' ')
simdead=$(awk '$2 == 2 && $4 >= 100 && $3 < 0.02 {print $1}' "$T/sim.win" | sort -n | tr '\n' ' ')
check "the dead windows line up within one karma period (searchd: $dead; model: $simdead)" '[ -n "$dead" ] && awk -v a="$dead" -v b="$simdead" "BEGIN {na = split(a, x, \" \"); nb = split(b, y, \" \"); d1 = x[1] - y[1]; d2 = x[na] - y[nb]; exit !(nb > 0 && d1 <= 1 && d1 >= -1 && d2 <= 1 && d2 >= -1)}"'
if [ "$fail" -ne 0 ]; then cat "$T/init.out" "$T/init.err"; grep "^fault\|^#.*incident\|^# *[0-9]" "$T/model.scn" | head -40; paste "$T/real.win" | head -60; cat "$T/both.win" "$T/dist.win"; fi

echo "cli_incident: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
