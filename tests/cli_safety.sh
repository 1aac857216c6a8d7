#!/usr/bin/env bash
# Integration: safe to run on a shared machine. Nothing is written through a link planted in
# an output folder (its lock, a file's .part, the folder itself); one run never deletes another
# run's folder (a finished run in X/sub under a --force rerun into X, a scenario named
# .hidden.scn); a finished folder names no process, so two identical runs' folders are
# identical under diff -r; the plot phase ends like every other phase (a signal while gnuplot
# draws leaves no finished folder, a chart cut short is never kept and the exit code says so).
set -u
B=$1; S=$2
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
. "$S/tests/lib.sh"
H="$B/hasim"; TB="$S/scenarios/textbook.scn"
echo precious > "$T/victim"
intact() { [ "$(cat "$T/victim")" = precious ]; }

# --- links ----------------------------------------------------------------------------------------
mkdir "$T/l1"; ln -s "$T/victim" "$T/l1/.hakarma.lock"
$H "$TB" --duration 30s --out "$T/l1" --quiet > "$T/l1.out" 2>&1; rc=$?
check "a link planted as OUT/.hakarma.lock: refused, named, its target untouched" 'refused $rc && grep -q "is a link" "$T/l1.out" && intact'
mkdir "$T/l2"; ln -s "$T/victim" "$T/l2/summary.csv.part"; ln -s "$T/victim" "$T/l2/report.txt"
$H "$TB" --duration 30s --out "$T/l2" --force --quiet > "$T/l2.out" 2>&1; rc=$?
check "links planted as NAME.part and NAME: the run writes its own files, the target untouched" '[ $rc -eq 0 ] && intact && [ ! -L "$T/l2/summary.csv" ] && [ ! -L "$T/l2/report.txt" ] && [ -s "$T/l2/summary.csv" ]'
mkdir -p "$T/w/out" "$T/elsewhere"; echo mine > "$T/elsewhere/keep"
ln -s "$T/elsewhere" "$T/w/out/textbook"
(cd "$T/w" && $H "$TB" --duration 30s --quiet > "$T/l3.out" 2>&1); rc=$?
check "the default out/<scenario> as a link: refused, what it points at untouched" 'refused $rc && grep -q "link" "$T/l3.out" && [ "$(cat "$T/elsewhere/keep")" = mine ] && [ "$(ls "$T/elsewhere")" = keep ]'
mkdir "$T/l4"; ln -s "$T/victim" "$T/l4/.hakarma.files"
$H "$TB" --duration 30s --out "$T/l4" --force --quiet > "$T/l4.out" 2>&1; rc=$?
check "a link planted as the folder's list: never written through" 'intact'

# --- one run never deletes another -------------------------------------------------------------------------
$H "$TB" --duration 30s --out "$T/x" --quiet && $H "$TB" --duration 30s --out "$T/x/sub" --quiet
$H "$TB" --duration 30s --out "$T/x" --force --quiet; rc=$?
check "--force into X keeps the finished run in X/sub" '[ $rc -eq 0 ] && [ -e "$T/x/sub/.hakarma.done" ] && [ -s "$T/x/sub/summary.csv" ]'
cp "$TB" "$T/w/.hidden.scn"; cp "$TB" "$T/w/tb.scn"
(cd "$T/w" && $H tb.scn --duration 30s --quiet && $H .hidden.scn --duration 30s --quiet && $H .hidden.scn --duration 30s --quiet); rc=$?
check "a scenario named .hidden.scn writes out/hidden, and its rerun keeps out/tb" '[ $rc -eq 0 ] && [ -e "$T/w/out/hidden/.hakarma.done" ] && [ -e "$T/w/out/tb/.hakarma.done" ] && [ ! -e "$T/w/out/.hakarma.files" ]'

# --- reproducible folders ------------------------------------------------------------------------------------
$H "$TB" --duration 30s --out "$T/d1" --quiet; $H "$TB" --duration 30s --out "$T/d2" --quiet
check "a finished folder names no process: diff -r of two identical runs is empty" '[ ! -s "$T/d1/.hakarma.lock" ] && diff -r "$T/d1" "$T/d2" > /dev/null'

# --- the plot phase ------------------------------------------------------------------------------------------
mkdir "$T/bin"
printf '#!/bin/sh\nsleep 30\n' > "$T/bin/gnuplot"; chmod +x "$T/bin/gnuplot"
PATH="$T/bin:$PATH" $H "$TB" --duration 30s --out "$T/p1" --plot > /dev/null 2> "$T/p1.err" & P=$!; PIDS+=($P)
for _ in $(seq 100); do pgrep -P $P gnuplot > /dev/null && break; sleep 0.05; done
kill -TERM $P; wait $P; rc=$?
check "SIGTERM while plotting: exit 143, the folder not finished, gnuplot ended" '[ $rc -eq 143 ] && [ ! -e "$T/p1/.hakarma.done" ] && ! pgrep -f "$T/bin/gnuplot" > /dev/null'
check "... and nothing of the run left" '[ ! -e "$T/p1/summary.csv" ] && [ -z "$(find "$T/p1" -name "*.part")" ]'
# a gnuplot that writes half a chart and exits 0, as on a full disk
cat > "$T/bin/gnuplot" <<'GP'
#!/bin/sh
out=$(printf '%s' "$2" | sed -n "s/.*out='\([^']*\)'.*/\1/p")
printf '\211PNG\r\n\032\nhalf' > "$out"
GP
PATH="$T/bin:$PATH" $H "$TB" --duration 30s --out "$T/p2" --plot > /dev/null 2> "$T/p2.err"; rc=$?
check "a chart cut short: exit 1, said, no chart kept, the CSV files complete" '[ $rc -eq 1 ] && grep -q "cut short" "$T/p2.err" && [ -z "$(find "$T/p2/plots" -name "*.png" -o -name "*.svg" -o -name "*.part")" ] && [ -s "$T/p2/summary.csv" ]'
D="$T/sq'd \$(touch $T/pwned)"
$H "$TB" --duration 30s --out "$D" --plot --quiet 2> "$T/p3.err"; rc=$?
check "a folder name with a quote and \$( ): plotted, gnuplot ran no command" '[ $rc -eq 0 ] && [ -s "$D/plots/latency.png" ] && [ ! -e "$T/pwned" ]'

# --- FIFOs are refused before they are read, never waited on ---------------------------------------
mkdir "$T/ff"; mkfifo "$T/ff/lat.csv"
printf 'searchd { ha_period_karma = 2 }\ntable d {\n type = distributed\n agent = a:1|b:1:s\n}\nmirror default { rtt = constant(0.3ms) service = empirical(lat.csv, ms) }\nworkload { arrivals = poisson(10/s) duration = 10s }\n' > "$T/ff/f.scn"
timeout 10 $H "$T/ff/f.scn" --out "$T/ff/o" > "$T/ff1.out" 2>&1; rc=$?
check "empirical(FIFO): hasim refuses at once (3), the FIFO named" '[ $rc -eq 3 ] && grep -q "lat.csv: expected a regular file, got a FIFO" "$T/ff1.out"'
timeout 10 $H sweep "$T/ff/f.scn" --grid 'ha_strategy=nodeads,noerrors' --out "$T/ff/s" > "$T/ff2.out" 2>&1; rc=$?
check "... so does a sweep" 'refused $rc && grep -q "got a FIFO" "$T/ff2.out"'
timeout 10 "$B/hareal" mirror --listen 127.0.0.1:$((29600 + $$ % 300)) --scenario "$T/ff/f.scn" --name a:1 > "$T/ff3.out" 2>&1; rc=$?
check "... and hareal mirror --scenario" 'refused $rc && grep -q "got a FIFO" "$T/ff3.out"'
mkdir "$T/series"; mkfifo "$T/series/status.1700000000.tsv"
timeout 10 $H init --config "$S/scenarios/dies-recovers.scn" --status "$T/series" --out "$T/ff/i.scn" > "$T/ff4.out" 2>&1; rc=$?
check "a FIFO in a status-series folder is refused, named (not skipped in silence)" 'refused $rc && grep -q "status.1700000000.tsv: expected a regular file, got a FIFO" "$T/ff4.out"'

# --- flap's period has a stated floor -----------------------------------------------------------------
sed 's/kind = down/kind = flap(1ms)/' "$S/scenarios/dies-recovers.scn" > "$T/flap.scn"
$H "$T/flap.scn" --out "$T/flap" > "$T/flap.out" 2>&1; rc=$?
check "flap(1ms): refused (3) at its column, the 2 ms minimum stated" '[ $rc -eq 3 ] && grep -q "flap.scn:[0-9]*:[0-9]*: flap: expected a period of at least 2 ms" "$T/flap.out"'

echo "cli_safety: $pass passed, $fail failed"
[ $fail -eq 0 ]
