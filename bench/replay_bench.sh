#!/usr/bin/env bash
# replay_bench.sh [BUILD_DIR] [BASE_PORT] — the real mode's performance (a benchmark, not a test):
#   1. replay: closed loop, 32 in flight, over two zero-delay hareal mirrors — queries/s and the
#      replay's own CPU time per query (the figure that holds on a loaded machine);
#   2. the same mirrors behind a real Sphinx 2.2.11 searchd master, driven by mysqlslap — its
#      queries/s and searchd's CPU time per query; parts 1 and 2 in three rounds in turn, and the
#      ratio of their medians;
#   3. open-loop timing lag (sent - scheduled) at 1000 and 5000 queries per second, with the load
#      average when it ran, so a reader can judge it;
#   4. hareal proxy in front of both mirrors (one process, two proxies, no toxic): the closed
#      loop again through it (requests/s through one proxy process on one core, its CPU per
#      request), and the latency it adds: an open loop sending every other query through it
#      (1000 q/s each way, so the VM's hiccups land on both), p50 and p99 of each and their
#      difference, in three rounds (and their median).
# Loopback only; bounded in count and time. Ports BASE_PORT..BASE_PORT+6 (default: 23000 + a
# per-process offset; also HK_BENCH_PORT). HK_BENCH_PERSIST=1: the replay's and searchd's agents
# persistent (agent_persistent, a pool of 32 a host) in parts 1 and 2.
set -u
B=${1:-build}; H="$B/hareal"
T=$(mktemp -d); PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
P=${2:-${HK_BENCH_PORT:-$(( 23000 + ($$ % 250) * 8 ))}}  # below the ephemeral range (TIME_WAIT)
case $P in ''|*[!0-9]*) echo "replay_bench: BASE_PORT must be a number, got '$P'"; exit 2;; esac
[ "$P" -ge 1024 ] && [ "$P" -le 65529 ] || { echo "replay_bench: BASE_PORT must be 1024..65529"; exit 2; }
echo "replay_bench: $(nproc) cores, ports $P..$((P+6)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
cpu_of() { awk '{print ($14 + $15) / '"$(getconf CLK_TCK)"'}' "/proc/$1/stat"; } # user+sys s
M1=$P; M2=$((P+1)); QL=$((P+2)); API=$((P+3))
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
"$H" mirror --listen 127.0.0.1:$M1 --quiet --max-conns 4000 & PIDS+=($!)
"$H" mirror --listen 127.0.0.1:$M2 --quiet --max-conns 4000 & PIDS+=($!)
wait_port $M1; wait_port $M2
AG=agent; LIM=""
if [ "${HK_BENCH_PERSIST:-}" = 1 ]; then AG=agent_persistent; LIM="persistent_connections_limit = 32"; fi
echo "replay_bench: agents: $AG"
printf 'searchd { ha_period_karma = 60  ha_ping_interval = 1000  %s }\ntable d {\n type = distributed\n %s = 127.0.0.1:%d|127.0.0.1:%d:shard1\n ha_strategy = roundrobin\n}\n' "$LIM" $AG $M1 $M2 > "$T/c.conf"
gen() { awk -v n=$1 -v r=$2 'BEGIN{print "t_s,table,query"; for(i=0;i<n;i++) printf "%.6f,d,q%d\n", i/r, i}' > "$3"; }

gen 20000 1000000 "$T/closed.csv"
TIMEFORMAT=%3U+%3S
have_sd=0
if command -v searchd > /dev/null && command -v mysqlslap > /dev/null; then
  cat > "$T/sphinx.conf" <<CONF
index d { type = distributed
  $AG = 127.0.0.1:$M1|127.0.0.1:$M2:shard1
  ha_strategy = roundrobin
}
searchd { listen = 127.0.0.1:$API
  listen = 127.0.0.1:$QL:mysql41
  log = $T/searchd.log
  pid_file = $T/searchd.pid
  workers = threads
  binlog_path =
  $LIM
}
CONF
  searchd --config "$T/sphinx.conf" --nodetach > "$T/searchd.out" 2>&1 & PIDS+=($!); spid=$!
  if wait_port $QL; then have_sd=1; else echo "searchd did not start:"; tail -3 "$T/searchd.out"; fi
else
  echo "searchd master: skipped (install sphinxsearch and default-mysql-client)"
fi
sdq() { mysql -h127.0.0.1 -P$QL -N -B -e "SHOW STATUS LIKE 'queries'" | cut -f2; }
# three rounds, the replay and searchd in turn: this VM's CPU per query moves by a third
# within minutes, so one pair of runs is no ratio
rr=(); ss=()
for r in 1 2 3; do
  s=$(date +%s.%N)
  c=$( { time "$H" replay --config "$T/c.conf" --trace "$T/closed.csv" --concurrency 32 --out "$T/closed$r" > /dev/null 2>&1; } 2>&1 | tail -1)
  e=$(date +%s.%N)
  ok=$(grep -c ",ok," "$T/closed$r/queries.csv")
  rr+=($(echo "$c" | awk -F+ '{printf "%.1f", ($1 + $2) / 20000 * 1e6}'))
  echo "round $r: hareal replay, closed loop x32: $(awk -v n=20000 -v s=$s -v e=$e 'BEGIN{printf "%.0f", n/(e-s)}') queries/s ($ok/20000 ok), ${rr[-1]} us CPU per query"
  [ $have_sd = 1 ] || continue
  # 6 s of mysqlslap (32 connections): searchd's own query counter and CPU time
  n0=$(sdq); c0=$(cpu_of $spid)
  timeout 6 mysqlslap -h127.0.0.1 -P$QL --concurrency=32 --iterations=1 --number-of-queries=1000000 \
    --create-schema=d --query="SELECT * FROM d WHERE MATCH('q')" > /dev/null 2>&1
  n1=$(sdq); c1=$(cpu_of $spid); n=$((n1 - n0))
  ss+=($(awk -v a=$c0 -v b=$c1 -v n=$n 'BEGIN {printf "%.1f", n ? (b - a) / n * 1e6 : 0}'))
  echo "round $r: searchd 2.2.11 master over the same mirrors, mysqlslap x32 for 6 s: $((n / 6)) queries/s, ${ss[-1]} us searchd CPU per query"
done
med() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
if [ $have_sd = 1 ]; then
  echo "replay vs searchd, CPU per query, medians of three rounds: $(med "${rr[@]}") us vs $(med "${ss[@]}") us: $(awk -v a=$(med "${rr[@]}") -v b=$(med "${ss[@]}") 'BEGIN {printf "%.1f", b / a}')x lighter"
  kill $spid 2>/dev/null
fi

for rate in 1000 5000; do
  gen $((rate * 5)) $rate "$T/open$rate.csv"
  "$H" replay --config "$T/c.conf" --trace "$T/open$rate.csv" --out "$T/open$rate" | grep "timing lag" | sed "s/^/open loop at $rate q\/s (load average $(cut -d' ' -f1 \/proc\/loadavg)): /"
done

# 4. the proxy: throughput through it, and the latency it adds
X1=$((P+4)); X2=$((P+5)); XA=$((P+6))
printf '[{"name":"m1","listen":"127.0.0.1:%d","upstream":"127.0.0.1:%d"},{"name":"m2","listen":"127.0.0.1:%d","upstream":"127.0.0.1:%d"}]\n' \
  $X1 $M1 $X2 $M2 > "$T/px.json"
"$H" proxy --config "$T/px.json" --api 127.0.0.1:$XA --quiet & PIDS+=($!); xpid=$!
wait_port $XA
sed "s/127.0.0.1:$M1|127.0.0.1:$M2/127.0.0.1:$X1|127.0.0.1:$X2/" "$T/c.conf" > "$T/px.conf"
x0=$(cpu_of $xpid); s=$(date +%s.%N)
"$H" replay --config "$T/px.conf" --trace "$T/closed.csv" --concurrency 32 --out "$T/pclosed" > /dev/null 2>&1
e=$(date +%s.%N); x1=$(cpu_of $xpid)
ok=$(grep -c ",ok," "$T/pclosed/queries.csv")
echo "through hareal proxy, closed loop x32: $(awk -v n=20000 -v s=$s -v e=$e 'BEGIN{printf "%.0f", n/(e-s)}') requests/s ($ok/20000 ok), $(awk -v a=$x0 -v b=$x1 'BEGIN {printf "%.1f", (b - a) / 20000 * 1e6}') us proxy CPU per request"
pct() { awk -F, 'NR > 1 && $8 == "ok" {print $9}' "$1" | sort -n | awk -v p=$2 '{v[NR] = $1} END {i = int(NR * p / 100); if (i < 1) i = 1; print v[i]}'; }
# the latency it adds: one replay sends every other query to a table of its own whose agent is
# the proxy in front of the same mirror, 1000 q/s each; a hiccup of the VM lands on both alike
printf 'searchd { ha_period_karma = 60  ha_ping_interval = 1000 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d:shard1\n}\ntable p {\n type = distributed\n agent = 127.0.0.1:%d:shard1\n}\n' $M1 $X1 > "$T/lat.conf"
awk 'BEGIN {print "t_s,table,query"; for (i = 0; i < 10000; i++) printf "%.6f,%s,q%d\n", i / 2000, i % 2 ? "p" : "d", i}' > "$T/lat.csv"
tpct() { awk -F, -v t=$2 'NR > 1 && $4 == t && $8 == "ok" {print $9}' "$1" | sort -n | awk -v p=$3 '{v[NR] = $1} END {i = int(NR * p / 100); if (i < 1) i = 1; print v[i]}'; }
a50=(); a99=()
for r in 1 2 3; do
  "$H" replay --config "$T/lat.conf" --trace "$T/lat.csv" --out "$T/lat$r" > /dev/null 2>&1
  q="$T/lat$r/queries.csv"
  d50=$(tpct "$q" d 50); d99=$(tpct "$q" d 99); p50=$(tpct "$q" p 50); p99=$(tpct "$q" p 99)
  a50+=($(awk -v a=$d50 -v b=$p50 'BEGIN {printf "%.0f", (b - a) * 1000}'))
  a99+=($(awk -v a=$d99 -v b=$p99 'BEGIN {printf "%.0f", (b - a) * 1000}'))
  echo "latency at 1000 q/s, round $r (ms, 5000 queries each way, interleaved): direct p50 $d50 p99 $d99; through the proxy p50 $p50 p99 $p99"
done
echo "latency the proxy adds at 1000 q/s: p50 ${a50[*]} us (median $(med "${a50[@]}")), p99 ${a99[*]} us (median $(med "${a99[@]}")); load average $(cut -d' ' -f1 /proc/loadavg)"
