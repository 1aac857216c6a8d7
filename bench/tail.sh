#!/usr/bin/env bash
# tail.sh [BUILD_DIR [CONF STATUS LOG [MIRROR_LOGS...]]] — how far hasim init's model of a
# capture predicts the tail its master logged. Runs init (config, status or series, query log),
# then hasim on the model over seeds 1-5, and prints the log's p50, p99 and p99.9 of each
# search's slowest agents=() time beside the model's (its answered queries), and their ratio;
# with hareal mirror logs (--log FILE.csv, one per mirror, named
# HOST_PORT.csv) each mirror's own p99 as its master saw it (its logged delays moved by the gap
# between the status's mean and its own) beside the model's p99 for that mirror.
# Without arguments: the capture that ships in scenarios/capture/. Exit 1 when a pooled p99 or
# p99.9 is off by more than 20%, or a mirror's p99 by more than 25% (issue 37's bounds).
set -eu
B=${1:-build}
S=$(cd "$(dirname "$0")/.." && pwd)
CONF=${2:-$S/scenarios/capture/sphinx.conf}
STATUS=${3:-$S/scenarios/capture/series}
LOG=${4:-$S/scenarios/capture/query.log}
shift $(( $# < 4 ? $# : 4 ))
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
"$B/hasim" init --config "$CONF" --status "$STATUS" --log "$LOG" --out "$T/m.scn" > /dev/null 2> "$T/init.err" ||
  { cat "$T/init.err" >&2; exit 2; }
# each search's time to its slowest agent line, ms: the largest of its agents=() times
sed -n 's/.*agents=(\([0-9., ]*\)).*/\1/p' "$LOG" |
  awk -F', *' '{ m = 0; for (i = 1; i <= NF; i++) if ($i > m) m = $i; printf "%.3f\n", m * 1000 }' | sort -n > "$T/log.ms"
pct() { awk -v p="$1" '{ x[NR] = $1 } END { k = (NR - 1) * p / 100; f = int(k); c = f + 1 > NR - 1 ? NR - 1 : f + 1;
        printf "%.3f", x[f + 1] + (x[c + 1] - x[f + 1]) * (k - f) }' "$2"; }
bad=0
printf '%-10s %10s %10s %8s\n' "" "log (ms)" "model" "ratio"
for seed in 1 2 3 4 5; do
  "$B/hasim" "$T/m.scn" --seed $seed --out "$T/r$seed" --quiet 2> /dev/null || { echo "tail.sh: hasim failed" >&2; exit 2; }
done
for q in 50 99 99.9; do
  l=$(pct $q "$T/log.ms"); m=0
  for seed in 1 2 3 4 5; do
    v=$(sed -n "s/^latency of answered queries, ms:.* p$q \([0-9.]*\) .*/\1/p" "$T/r$seed/report.txt")
    m=$(awk -v a="$m" -v b="$v" 'BEGIN { printf "%.3f", a + b / 5 }')
  done
  r=$(awk -v a="$m" -v b="$l" 'BEGIN { printf "%.3f", a / b }')
  printf '%-10s %10s %10s %8s\n' "p$q" "$l" "$m" "$r"
  if [ "$q" != 50 ] && awk -v r="$r" 'BEGIN { exit !(r < 0.8 || r > 1.2) }'; then bad=1; fi
done
for f in "$@"; do
  # the mirror's own delays, as its master sees them: moved by the gap between the status's mean
  # (the master's measure: network and its own overhead included) and the mirror's own mean
  mirror=$(basename "$f" .csv | tr _ :)
  awk -F, 'NR > 1 && $6 == "ok" { print $5 }' "$f" | sort -n > "$T/own.ms"
  gap=$(grep -A1 "^mirror $mirror " "$T/m.scn" | sed -n 's/.*# mean \([0-9.]*\) ms measured.*/\1/p' |
        awk -v f="$T/own.ms" '{ m = $1 } END { while ((getline x < f) > 0) { s += x; n++ } printf "%.3f", n ? m - s / n : 0 }')
  own=$(pct 99 "$T/own.ms"); own=$(awk -v a="$own" -v g="$gap" 'BEGIN { printf "%.3f", a + g }')
  # the model's p99 of the mirror on each agent line it serves (seed 1)
  for sim in $(awk -F, -v m="$mirror" '$3 == m { printf "%.3f\n", $10 }' "$T/r1/summary.csv"); do
    r=$(awk -v a="$sim" -v b="$own" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    printf '%-22s own p99 %8s (its delays + %s ms to its master)  model %8s  ratio %s\n' "$mirror" "$own" "$gap" "$sim" "$r"
    if awk -v r="$r" 'BEGIN { exit !(r < 0.75 || r > 1.25) }'; then bad=1; fi
  done
done
exit $bad
