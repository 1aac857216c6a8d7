#!/bin/bash
# Issue 39: `hareal watch` pointed at a real Sphinx 2.2.11 master (noerrors, karma 2 s, ping
# 500 ms) over three hareal mirrors (4, 5, 6 ms) and a fourth mirror (5 ms) behind `hareal
# proxy`; 12 mysql clients stream searches. Over the proxy's API, 6 s each, 7 s apart: stuck
# (searches hang, pings answered), an ERROR burst (30% of its searches), down (its port
# closed), stall (nothing passes), slow (5 -> 25 ms). The watch must raise each finding (stuck,
# failing, dead, stall, slow) on that mirror within two karma periods of its start, clear it
# within two of its end, raise nothing else; its shares and reconstructed weights within 5
# points of what the mirrors logged over the healthy start; /metrics promtool-clean; a second
# watch with --fail-on stuck ends with exit 4; the series it kept reads in hasim init as the
# same incident as snapshots taken by hand; a fake master answering garbage or nothing is said
# and waited for. Not under the sanitizers: the timing is a measurement.
B=${1:?build dir}; S=${2:?source dir}
. "$S/tests/lib.sh"
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
needs cli_watch searchd mysql curl promtool python3
if [ -n "${HK_SANITIZED:-}" ]; then echo "cli_watch: a measurement, not run under the sanitizers"; exit 77; fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "${KEEP:-}" ] && { echo "kept $T"; return; }; rm -rf "$T"; }
trap cleanup EXIT
P=$(( 17000 + ($$ % 80) * 12 ))  # 17000-17959: below the ephemeral range, apart from other tests
M1=$P; M2=$((P+1)); M3=$((P+2)); M4=$((P+3)); PX=$((P+4)); API=$((P+5)); QL=$((P+6))
MET=$((P+7)); G1=$((P+8)); G2=$((P+9)); G3=$((P+10))
now() { date +%s.%N; }
api() { curl -s -o /dev/null -w "%{http_code}" "$@"; }

for i in 1 2 3; do ms=(0 4 5 6)
  "$B/hareal" mirror --listen 127.0.0.1:$((P + i - 1)) --service "constant(${ms[$i]}ms)" --log "$T/m$i.csv" --quiet & PIDS+=($!)
done
"$B/hareal" mirror --listen 127.0.0.1:$M4 --service "constant(5ms)" --log "$T/m4.csv" --quiet & PIDS+=($!)
"$B/hareal" proxy --listen 127.0.0.1:$PX --upstream 127.0.0.1:$M4 --api 127.0.0.1:$API --name px > "$T/px.out" 2>&1 & PIDS+=($!)
mkdir -p "$T/prod" "$T/snap"
cat > "$T/prod.conf" <<CONF
index d
{
    type        = distributed
    agent       = 127.0.0.1:$M1|127.0.0.1:$M2|127.0.0.1:$M3|127.0.0.1:$PX:x
    ha_strategy = noerrors
    # a stuck mirror is told by its query timeouts, counted a query timeout after the fault's
    # start: at 1 s they fall within two karma periods (at searchd's default 3 s, within the
    # timeout and a period)
    agent_query_timeout = 1000
}
CONF
sd_master "$T/prod" $QL 2 500 >> "$T/prod.conf"
searchd --config "$T/prod.conf" --nodetach > "$T/prod/searchd.out" 2>&1 & PIDS+=($!)
# the fake masters: G1 sends garbage for a greeting, G2 accepts and says nothing, G3 a greeting
# cut short; each connection closed after
python3 - "$G1" "$G2" "$G3" > "$T/fake.out" 2>&1 <<'PY' & PIDS+=($!)
import socket, sys, threading, time
def serve(port, what):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(port))); s.listen(16)
    while True:
        c, _ = s.accept()
        if what == "garbage": c.sendall(b"\xff\x00garbage that is no greeting\r\n" * 40); c.close()
        elif what == "cut": c.sendall(b"\x4a\x00\x00\x00\x0a2.2.11"); c.close()
        else: threading.Thread(target=lambda c=c: (time.sleep(120), c.close()), daemon=True).start()
for p, w in zip(sys.argv[1:], ["garbage", "silent", "cut"]):
    threading.Thread(target=serve, args=(p, w), daemon=True).start()
time.sleep(600)
PY
wait_port $QL; wait_port $API; wait_port $PX; wait_port $G1; wait_port $G3; sleep 1

"$B/hareal" watch --master 127.0.0.1:$QL --config "$T/prod.conf" --out "$T/w" --windows --metrics 127.0.0.1:$MET > "$T/watch.out" 2> "$T/watch.err" & wpid=$!; PIDS+=($wpid)
"$B/hareal" watch --master 127.0.0.1:$QL --config "$T/prod.conf" --out "$T/w2" --fail-on stuck --quiet > /dev/null 2> "$T/w2.err" & w2=$!; PIDS+=($w2)
"$B/hareal" watch --master 127.0.0.1:$G1 --master 127.0.0.1:$G2 --master 127.0.0.1:$G3 --out "$T/g" > "$T/g.out" 2> "$T/g.err" & gpid=$!; PIDS+=($gpid)
# by hand, as an operator's loop would, at the same phase as the watch (just after each 2 s
# block begins: a 1-period window then holds the whole block before)
( while :; do sleep "$(awk -v t="$(now)" 'BEGIN { printf "%.3f", (int(t / 2) + 1) * 2 + 0.3 - t }')"; t=$(now); mysql -h127.0.0.1 -P$QL -B -e "SHOW AGENT STATUS" > "$T/snap/.next" 2>&1 &&
    mv "$T/snap/.next" "$T/snap/status.$t.tsv"; done ) & scrape=$!; PIDS+=($scrape)
LOADS=(); for _ in $(seq 12); do
  yes "SELECT * FROM d WHERE MATCH('load');" | timeout 78 mysql -h127.0.0.1 -P$QL --force > /dev/null 2>&1 & LOADS+=($!); PIDS+=($!)
done
t_load=$(now)
sleep 12; t_stuck=$(now);   api -d '{"type":"stuck"}' 127.0.0.1:$API/proxies/px/toxics > "$T/c1"
sleep 5;  curl -s 127.0.0.1:$MET/metrics > "$T/metrics.txt"
sleep 1;  t_stuck_e=$(now); api -X DELETE 127.0.0.1:$API/proxies/px/toxics/stuck_downstream > "$T/c2"
sleep 7;  t_err=$(now);     api -d '{"type":"errors","toxicity":0.3}' 127.0.0.1:$API/proxies/px/toxics > "$T/c3"
sleep 6;  t_err_e=$(now);   api -X DELETE 127.0.0.1:$API/proxies/px/toxics/errors_downstream > "$T/c4"
sleep 7;  t_down=$(now);    api -X POST -d '{"enabled":false}' 127.0.0.1:$API/proxies/px > "$T/c5"
sleep 6;  t_down_e=$(now);  api -X POST -d '{"enabled":true}' 127.0.0.1:$API/proxies/px > "$T/c6"
sleep 7;  t_stall=$(now);   api -d '{"type":"stall"}' 127.0.0.1:$API/proxies/px/toxics > "$T/c7"
sleep 6;  t_stall_e=$(now); api -X DELETE 127.0.0.1:$API/proxies/px/toxics/stall_downstream > "$T/c8"
sleep 7;  t_slow=$(now);    api -d '{"type":"latency","attributes":{"latency":20}}' 127.0.0.1:$API/proxies/px/toxics > "$T/c9"
sleep 6;  t_slow_e=$(now);  api -X DELETE 127.0.0.1:$API/proxies/px/toxics/latency_downstream > "$T/c10"
wait "${LOADS[@]}"; sleep 2.5
kill $scrape 2>/dev/null
kill -TERM $wpid $gpid; wait $wpid; wrc=$?; wait $gpid; grc=$?
wait $w2; w2rc=$?
codes=$(for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/c$i"; done | tr -d '\n')
check "the proxy took every fault ($codes)" '[ "$codes" = "200204200204200200200204200204" ]'
check "the watch ends cleanly at SIGTERM" '[ $wrc -eq 0 ] && [ -s "$T/w/events.jsonl" ] && [ -f "$T/w/.hakarma.done" ]'
check "it names the variant from the master's own status" 'grep -q "the sphinx2 variant" "$T/watch.out"'

# each fault: its finding raised on the proxied mirror within two karma periods (4 s) of its
# start, cleared within two of its end (0.5 s more: the answer's own time)
ev() { # kind event from to: the first such event's time on the proxied mirror in [from, to]
  python3 - "$T/w/events.jsonl" "$1" "$2" "$3" "$4" "127.0.0.1:$PX" <<'PY'
import json, sys
f, kind, event, lo, hi, mirror = sys.argv[1:]
for l in open(f):
    e = json.loads(l)
    if e["kind"] == kind and e["event"] == event and e["mirror"] == mirror and float(lo) <= e["t"] <= float(hi):
        print("%.2f" % e["t"]); break
PY
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
delays=
for f in "stuck $t_stuck $t_stuck_e" "failing $t_err $t_err_e" "dead $t_down $t_down_e" "stall $t_stall $t_stall_e" "slow $t_slow $t_slow_e"; do
  set -- $f
  r=$(ev $1 raised "$2" "$(add $2 30)"); c=$(ev $1 cleared "$3" "$(add $3 30)")
  dr=$(add "${r:-1e12}" -$2); dc=$(add "${c:-1e12}" -$3)
  delays="$delays $1 +$dr/+$dc"
  check "$1 raised within two karma periods of its start (after $dr s)" 'awk -v d=$dr "BEGIN { exit !(d <= 4.5) }"'
  # a stuck mirror's held searches time out up to a query timeout after its end, and each is
  # counted then: it is over in the first window after them
  lim=4.5; [ $1 = stuck ] && lim=5.5
  check "$1 cleared within two karma periods of its end (after $dc s; stuck: and a query timeout)" 'awk -v d=$dc -v l=$lim "BEGIN { exit !(d <= l) }"'
done
# nothing else raised: the five above and no invented finding (the first 12 s: a healthy start)
others=$(python3 - "$T/w/events.jsonl" "127.0.0.1:$PX" <<'PY'
import json, sys
want = {"stuck", "failing", "dead", "stall", "slow"}
n = 0
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] == "raised" and not (e["mirror"] == sys.argv[2] and e["kind"] in want):
        print(e["kind"], e["mirror"], e["evidence"], file=sys.stderr); n += 1
print(n)
PY
)
check "no finding raised but the five faults' ($others others)" '[ "$others" = 0 ]'
check "each raised finding says why, with the master, table, agent and mirror" 'python3 -c "
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    assert set(e) == {\"t\", \"event\", \"kind\", \"master\", \"table\", \"agent\", \"mirror\", \"evidence\"}, e
    assert e[\"table\"] == \"d\" and e[\"agent\"] == 1 and len(e[\"evidence\"]) > 20, e
" "$T/w/events.jsonl"'

# shares and reconstructed weights over the healthy start (from 3 s after the load to the
# stuck), against the mirrors' own logs
python3 - "$T" "$t_load" "$t_stuck" "$P" > "$T/shares.txt" <<'PY'
import csv, sys
T, t0, t1, P = sys.argv[1], float(sys.argv[2]) + 3, float(sys.argv[3]), int(sys.argv[4])
names = ["127.0.0.1:%d" % p for p in (P, P + 1, P + 2, P + 4)]
logs = ["%s/m%d.csv" % (T, i) for i in (1, 2, 3, 4)]
n = []
for f in logs:
    k = 0
    for r in csv.DictReader(open(f)):
        if t0 <= float(r["t_s"]) <= t1: k += 1
    n.append(k)
share = {}; weight = {}; cnt = {}
for r in csv.DictReader(open(T + "/w/windows.csv")):
    t = float(r["t_s"])
    if t0 + 2 <= t <= t1 and float(r["share"]) >= 0:
        m = r["mirror"]; share[m] = share.get(m, 0) + float(r["share"]); weight[m] = weight.get(m, 0) + float(r["weight"]); cnt[m] = cnt.get(m, 0) + 1
for name, k in zip(names, n):
    c = cnt.get(name, 0)
    print(name, "%.3f" % (k / max(sum(n), 1)), "%.3f" % (share.get(name, 0) / max(c, 1)), "%.3f" % (weight.get(name, 0) / max(c, 1)), c)
PY
check "the mirrors logged the healthy start ($(awk '{print $2}' "$T/shares.txt" | tr '\n' ' '))" '[ "$(wc -l < "$T/shares.txt")" = 4 ] && awk "\$5 < 3 { exit 1 }" "$T/shares.txt"'
check "shares within 5 points of the mirrors' logs" 'awk "{ d = \$3 - \$2; if (d > 0.05 || d < -0.05) exit 1 }" "$T/shares.txt"'
check "reconstructed weights within 5 points of the mirrors' logs (noerrors picks by them)" 'awk "{ d = \$4 - \$2; if (d > 0.05 || d < -0.05) exit 1 }" "$T/shares.txt"'

# /metrics during the stuck: promtool-clean, the finding and the weights there
check "/metrics is promtool-clean" '[ -s "$T/metrics.txt" ] && promtool check metrics < "$T/metrics.txt" > "$T/promtool.out" 2>&1'
check "/metrics shows the stuck mirror's finding and every mirror's weight" 'grep -q "^hakarma_watch_finding_active{.*mirror=\"127.0.0.1:$PX\",kind=\"stuck\"} 1" "$T/metrics.txt" && [ "$(grep -c "^hakarma_watch_mirror_weight_ratio{" "$T/metrics.txt")" = 4 ]'
check "the alert rules are promtool-clean" 'promtool check rules "$S/docs/watch/hakarma-watch.rules.yml" > /dev/null 2>&1'
check "the dashboard parses and its queries name series the watch serves" 'python3 - "$S/docs/watch/hakarma-watch.dashboard.json" "$T/metrics.txt" "$S/docs/watch/hakarma-watch.rules.yml" <<PY
import json, re, sys
d = json.load(open(sys.argv[1]))
served = set(re.findall(r"^# TYPE (\w+)", open(sys.argv[2]).read(), re.M))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
exprs += re.findall(r"expr: (.*)", open(sys.argv[3]).read())
assert len(exprs) >= 6, exprs
for e in exprs:
    names = set(re.findall(r"hakarma_\w+", e))
    assert names and names <= served, (e, names - served)
PY'

# --fail-on stuck: the second watch ends with exit 4 once the stuck is raised
check "--fail-on stuck ends a watch with exit 4, naming the kind" '[ $w2rc -eq 4 ] && grep -q "a .stuck. finding was raised" "$T/w2.err"'

# the kept series reads in hasim init as the incident the hand-taken snapshots show
nsnap=$(ls "$T/w/status" | wc -l)
check "every snapshot kept, complete ($nsnap)" '[ "$nsnap" -ge 35 ] && ! ls -a "$T/w/status" | grep -q "\.part$"'
"$B/hasim" init --config "$T/prod.conf" --status "$T/w/status" --out "$T/w.scn" > "$T/initw.out" 2> "$T/initw.err"; rw=$?
"$B/hasim" init --config "$T/prod.conf" --status "$T/snap" --out "$T/h.scn" > "$T/inith.out" 2> "$T/inith.err"; rh=$?
kinds() { grep -o "kind = [a-z]*" "$1" | sort | uniq -c | tr -s ' '; }
check "init reads the watch's series as it reads snapshots taken by hand ($(kinds "$T/w.scn" | tr '\n' ';'))" '[ $rw -eq 0 ] && [ $rh -eq 0 ] && [ "$(kinds "$T/w.scn")" = "$(kinds "$T/h.scn")" ] && grep -q "kind = stuck" "$T/w.scn"'

# the README's replay of the last hour, verbatim but for the folders
( cd "$T" && mkdir -p hour && find w/status -name 'status.*' -mmin -60 -exec cp -t hour {} + &&
  "$B/hasim" init --config prod.conf --status hour --out incident.scn > /dev/null 2> readme.err &&
  "$B/hasim" incident.scn --out inc --quiet > /dev/null 2>> readme.err ); rr=$?
check "the README's replay of the last hour runs on the watch's folder" '[ $rr -eq 0 ] && [ "$(ls "$T/hour" | wc -l)" = "$nsnap" ] && [ -s "$T/inc/summary.csv" ] || { echo "  rc $rr, $(ls "$T/hour" | wc -l) of $nsnap copied:"; sed "s/^/  /" "$T/readme.err"; false; }'

# the fake masters: each said, none a crash, the watch waiting until told to stop
check "a master answering garbage, nothing, or a cut greeting is said and waited for" '[ $grc -eq 0 ] && [ "$(grep -c "retrying" "$T/g.out")" = 3 ] && grep -q "127.0.0.1:$G2: no answer in 10 s" "$T/g.out"'

echo "cli_watch: raised/cleared after the fault's start/end (s):$delays"
echo "cli_watch: $pass passed, $fail failed"
[ $fail -eq 0 ]
