#!/usr/bin/env bash
# Integration: the benchmark's tools stay usable and its anchors stay the same models as the
# shipped scenarios (no timing is checked here: speed is measured by bench/, never by tests).
# The bare loop agrees with hasim on mmc.scn and textbook.scn (mean latency within 3%, every
# share within 0.01, as anchors.sh requires before it reports a ratio); hkbench runs each part
# and refuses what it does not know.
set -u
B=$1; S=$2
for bin in hasim bareloop hkbench; do
  [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }
done
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }

# the bare loop and hasim on the same model: the figures anchors.sh compares first
agree() { # agree MODEL SECONDS
  "$B/hasim" "$S/scenarios/$1.scn" --duration "$2s" --out "$T/$1" --quiet || return 1
  local hm hs bl
  hm=$(sed -n 's/^latency of answered queries.* mean \([0-9.]*\).*/\1/p' "$T/$1/report.txt")
  hs=$(awk -F, 'NR>1 {printf " %.4f", $5}' "$T/$1/summary.csv")
  bl=$("$B/bareloop" "$1" "$2") || return 1
  echo "$1: hasim mean $hm shares$hs; bare loop: $bl"
  awk -v hm="$hm" -v hs="$hs" -v bl="$bl" 'BEGIN {
    n = split(bl, f, " "); for (i = 1; i < n; i++) if (f[i] == "mean_ms") bm = f[i + 1]
    m = split(hs, a, " "); split(substr(bl, index(bl, "shares") + 7), b, " ")
    ok = m == 4 && bm > hm * 0.97 && bm < hm * 1.03
    for (i = 1; i <= m; i++) if (a[i] - b[i] > 0.01 || b[i] - a[i] > 0.01) ok = 0
    exit !ok }'
}
check "mmc: the bare loop agrees with hasim" 'agree mmc 1200'
check "textbook: the bare loop agrees with hasim" 'agree textbook 1200'
"$B/bareloop" nosuch 10 > /dev/null 2>&1
check "bareloop: an unknown model exits 2" '[ $? -eq 2 ]'

"$B/hkbench" --quick --quiet --only picks > "$T/picks.out" 2>&1
check "hkbench --only picks: exits 0, a line per size, nothing else" '[ $? -eq 0 ] && [ "$(grep -c "^picks " "$T/picks.out")" -eq 5 ] && [ "$(wc -l < "$T/picks.out")" -eq 5 ]'
"$B/hkbench" --only nosuch > /dev/null 2>&1
check "hkbench --only with an unknown part exits 2" '[ $? -eq 2 ]'

echo "cli_bench: $pass passed, $fail failed"
[ $fail -eq 0 ]
