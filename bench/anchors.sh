#!/usr/bin/env bash
# anchors.sh [BUILD_DIR] [PAIRS] — hasim's speed against its anchors (a benchmark, not a test):
#   scenarios/mmc.scn       against bench/bareloop's mmc model (the least a C program must do
#                           for it) and bench/mmc_simpy.py (the same model in SimPy, Debian
#                           python3-simpy; skipped with a line saying so when it is missing);
#   scenarios/textbook.scn  against bench/bareloop's textbook model.
# For each: first checks that the programs agree on mean latency and shares (else a ratio means
# nothing), then measures whole-process CPU time (user + sys) per query, hasim and the bare loop
# back to back in PAIRS pairs (default 9: this VM has bursts that slow one run of a pair, and
# the median of nine stays with the undisturbed pairs), and prints the medians and the median
# of the pairs' ratios. The last lines read
# "hasim = X of bare loop, Y x SimPy" (mmc) and "textbook: hasim = X of bare loop".
set -u
B=${1:-build}; PAIRS=${2:-9}
cd "$(dirname "$0")/.." || exit 1
for bin in hasim bareloop; do [ -x "$B/$bin" ] || { echo "anchors: $B/$bin is missing (cmake --build $B)"; exit 1; }; done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
SIM_S=7200      # simulated seconds per timed run of mmc (600/s: 4.3 M queries), and 3x that of
                # textbook (200/s): the same queries in both, so start-up and the answer files
                # (a fixed ~10 ms of hasim's run) weigh the same in both ratios
PY_S=600        # ... of the SimPy model (it is slower)
PY=/usr/bin/python3

# cpu CMD...: runs CMD, prints "user+sys seconds" of the whole process on stderr's last line
cpu() { local TIMEFORMAT=%3U+%3S; { time "$@" > "$T/last.out" 2>/dev/null; } 2>&1 | tail -1 | awk -F+ '{print $1 + $2}'; }
per_q() { awk -v c="$1" -v q="$2" 'BEGIN {printf "%.3f\n", c / q * 1e9}'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# hasim's answers: mean latency (report.txt) and shares (summary.csv)
hasim_run() { rm -rf "$T/h"; "$B/hasim" "scenarios/$1.scn" --duration "${2}s" --out "$T/h" --quiet; }
hasim_line() {
  local q m s
  q=$(sed -n 's/^queries: \([0-9]*\):.*/\1/p' "$T/h/report.txt")
  m=$(sed -n 's/^latency of answered queries.* mean \([0-9.]*\).*/\1/p' "$T/h/report.txt")
  s=$(awk -F, 'NR>1 {printf " %.4f", $5}' "$T/h/summary.csv")
  echo "queries $q mean_ms $m shares$s"
}
field() { awk -v k="$1" '{for (i=1;i<NF;i++) if ($i==k) print $(i+1)}'; }
shares() { sed 's/.*shares //'; }
agree() { # agree HASIM_LINE OTHER_LINE NAME: mean within 3%, every share within 0.01 of hasim's
  awk -v hm="$(echo "$1" | field mean_ms)" -v om="$(echo "$2" | field mean_ms)" \
      -v hs="$(echo "$1" | shares)" -v os="$(echo "$2" | shares)" -v n="$3" 'BEGIN {
    ok = (om > hm * 0.97 && om < hm * 1.03); split(hs, a, " "); split(os, b, " ")
    for (i in a) if (a[i] - b[i] > 0.01 || b[i] - a[i] > 0.01) ok = 0
    if (!ok) printf "anchors: %s disagrees with hasim (mean %s vs %s ms, shares %s vs %s): no ratio\n", n, om, hm, os, hs
    exit !ok }'
}

# pairs MODEL SECONDS: CPU ns per query of hasim and the bare loop, back to back; sets HN and BN
# (the medians) and R, the median of each pair's ratio (bare / hasim): a pair runs within a
# second, so a shared machine's drift over the minutes of the run cancels in its ratio
pairs() {
  : > "$T/h.t"; : > "$T/b.t"; : > "$T/r.t"
  for _ in $(seq "$PAIRS"); do
    c=$(cpu hasim_run "$1" "$2"); q=$(hasim_line | field queries); h=$(per_q "$c" "$q")
    c=$(cpu "$B/bareloop" "$1" "$2"); q=$(field queries < "$T/last.out"); b=$(per_q "$c" "$q")
    echo "$h" >> "$T/h.t"; echo "$b" >> "$T/b.t"
    awk -v h="$h" -v b="$b" 'BEGIN {printf "%.4f\n", b / h}' >> "$T/r.t"
  done
  HN=$(median < "$T/h.t"); BN=$(median < "$T/b.t"); R=$(median < "$T/r.t")
  printf "  hasim     %7.1f ns CPU per query (median of %d, %d s simulated)\n" "$HN" "$PAIRS" "$2"
  printf "  bare loop %7.1f ns CPU per query\n" "$BN"
  printf "  pairs' ratios (bare loop / hasim): %s\n" "$(sort -g "$T/r.t" | tr '\n' ' ')"
}

echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. mmc: agreement (600 s of each), then the pairs and SimPy
echo "anchors: scenarios/mmc.scn (Poisson 600/s, 4 mirrors x 2 FCFS workers, exp 8/6/12/4 ms, manticore-fixed weights)"
hasim_run mmc 600 > /dev/null 2>&1 || { echo "anchors: hasim failed"; exit 1; }
H=$(hasim_line); BL=$("$B/bareloop" mmc 600)
echo "  hasim     $H"; echo "  bare loop $BL"
have_py=0
if $PY -c 'import SimPy.Simulation' 2> /dev/null; then
  have_py=1; PL=$($PY bench/mmc_simpy.py 600); echo "  SimPy     $PL"
else
  echo "  SimPy     skipped: python3-simpy is not installed (apt-get install python3-simpy)"
fi
agree "$H" "$BL" "the bare loop" || exit 1
[ $have_py = 1 ] && { agree "$H" "$PL" "SimPy" || exit 1; }
echo "  agree: mean latency within 3%, every share within 0.01"
pairs mmc $SIM_S
line=$(awk -v r="$R" 'BEGIN {printf "hasim = %.2f of bare loop", r}')
if [ $have_py = 1 ]; then
  : > "$T/p.t"
  for _ in 1 2 3; do
    c=$(cpu $PY bench/mmc_simpy.py $PY_S); q=$(field queries < "$T/last.out"); per_q "$c" "$q" >> "$T/p.t"
  done
  pn=$(median < "$T/p.t")
  printf "  SimPy     %7.1f ns CPU per query (median of 3, %d s simulated)\n" "$pn" $PY_S
  line="$line, $(awk -v h="$HN" -v p="$pn" 'BEGIN {printf "%.0fx SimPy", p / h}')"
fi

# 2. textbook: agreement, then the pairs
echo "anchors: scenarios/textbook.scn (Poisson 200/s, 4 mirrors of constant 10/5/30/3 ms, no queue, manticore weights, pings after 1 s idle)"
hasim_run textbook 600 > /dev/null 2>&1 || { echo "anchors: hasim failed"; exit 1; }
H=$(hasim_line); BL=$("$B/bareloop" textbook 600)
echo "  hasim     $H"; echo "  bare loop $BL"
agree "$H" "$BL" "the bare loop" || exit 1
echo "  agree: mean latency within 3%, every share within 0.01"
pairs textbook $((3 * SIM_S))
echo "$line"
awk -v r="$R" 'BEGIN {printf "textbook: hasim = %.2f of bare loop\n", r}'
