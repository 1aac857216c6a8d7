#!/usr/bin/env bash
# Integration: one run owns its output folder, and every way a run can end leaves it right.
# Two runs into one folder (the second refused at once, naming the first's pid), a finished
# folder refused without --force and wholly replaced with it, the files a killed run left
# removed by the next, SIGINT/SIGTERM/SIGHUP of hasim and of a sweep (workers included) and
# SIGKILL of a sweep and of hareal live (no process left behind), a failed replay that does
# not block its rerun, and a full disk (a small tmpfs this test mounts and unmounts) noticed at
# once. Every check tells a refusal (exit 1-4) from a crash or a missing binary (126+).
set -u
B=$1; S=$2
for bin in hasim hareal hk_flood; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
T=$(mktemp -d)
MNT="$T/full"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done
  mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
  rm -rf "$T"
}
trap cleanup EXIT
. "$S/tests/lib.sh"   # check, refused (1-4: a refusal, not a crash)
H="$B/hasim"; R="$B/hareal"
LONG="$S/scenarios/large-64x3.scn"                   # seconds of work at --duration 2h
none_left() { [ -z "$(find "$1" -name '*.part' 2>/dev/null)" ]; }
only_hidden() { [ -z "$(find "$1" -mindepth 1 -not -name '.hakarma.*' 2>/dev/null)" ]; }
printf 'searchd { ha_period_karma = 2 }\ntable d {\n type = distributed\n agent = 127.0.0.1:9|127.0.0.1:9:s\n}\n' > "$T/replay.conf"
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
wait_lock() { for _ in $(seq 200); do grep -q "$2" "$1/.hakarma.lock" 2>/dev/null && return 0; sleep 0.02; done; return 1; }

# --- one run per folder ---------------------------------------------------------------------
$H "$LONG" --duration 2h --out "$T/busy" --quiet 2> /dev/null & P=$!; PIDS+=($P)
wait_lock "$T/busy" "$P hasim"
t0=$(date +%s%N)
$H "$S/scenarios/textbook.scn" --out "$T/busy" --duration 30s > "$T/busy.out" 2>&1; rc=$?
t1=$(date +%s%N)
check "a second run into a busy folder is refused (exit 2) naming the first's pid" '[ $rc -eq 2 ] && grep -q "is in use by another run (pid $P hasim)" "$T/busy.out"'
check "... at once, not waiting for the lock (under 3 s, a CPU hog beside)" '[ $(( (t1 - t0) / 1000000 )) -lt 3000 ]'
$R replay --config "$T/replay.conf" --trace /dev/null --out "$T/busy" > "$T/busy2.out" 2>&1; rc=$?
check "hareal refuses the same busy folder" 'refused $rc && ! grep -q "Segmentation" "$T/busy2.out"'
kill -INT $P; wait $P; rc=$?
check "SIGINT ends hasim with 130" '[ $rc -eq 130 ]'
check "... leaving no file of the run, no .part" 'only_hidden "$T/busy"'

# --- finished folders: refused, or wholly replaced with --force ---------------------------------
$H "$S/scenarios/textbook.scn" --out "$T/o" --duration 30s --queries --quiet; rc=$?
check "a run with --queries" '[ $rc -eq 0 ] && [ -s "$T/o/queries.csv" ]'
$H "$S/scenarios/mmc.scn" --out "$T/o" --duration 30s > "$T/o.out" 2>&1; rc=$?
check "a finished folder is refused without --force (exit 2, says why)" '[ $rc -eq 2 ] && grep -q "holds a finished run" "$T/o.out" && grep -q "the manual.s example" "$T/o/scenario.txt"'
check "... with no position for a whole-folder error" '! grep -q "byte 0" "$T/o.out"'
$H "$S/scenarios/mmc.scn" --out "$T/o" --duration 30s --force --quiet; rc=$?
check "--force replaces the run: no file of the older one survives" '[ $rc -eq 0 ] && [ ! -e "$T/o/queries.csv" ] && ! grep -q "the manual.s example" "$T/o/scenario.txt" && grep -q "mmc.scn" "$T/o/report.txt"'
mkdir -p "$T/mine"; echo keep > "$T/mine/notes.txt"
$H "$S/scenarios/textbook.scn" --out "$T/mine" --duration 30s > "$T/mine.out" 2>&1; rc=$?
check "a folder of someone else's files is refused" '[ $rc -eq 2 ] && grep -q "holds no hakarma run" "$T/mine.out" && [ -s "$T/mine/notes.txt" ]'

# --- a killed run's files go with the next run --------------------------------------------------
$H "$LONG" --duration 2h --queries --out "$T/k" --quiet 2> /dev/null & P=$!; PIDS+=($P)
wait_lock "$T/k" "$P hasim"; sleep 0.5; kill -9 $P; wait $P 2>/dev/null
check "kill -9 leaves the run's .part files (nothing could remove them)" '! none_left "$T/k"'
$H "$S/scenarios/textbook.scn" --out "$T/k" --duration 30s --quiet; rc=$?
check "the rerun takes the folder (not finished) and removes them" '[ $rc -eq 0 ] && none_left "$T/k" && [ ! -e "$T/k/queries.csv" ]'

# --- every signal ends hasim cleanly ----------------------------------------------------------------
for sig in INT:130 TERM:143 HUP:129; do
  s=${sig%:*}; want=${sig#*:}
  $H "$LONG" --duration 2h --queries --out "$T/s$s" 2> "$T/s$s.err" > /dev/null & P=$!; PIDS+=($P)
  wait_lock "$T/s$s" "$P hasim"; sleep 0.3; kill -$s $P; wait $P; rc=$?
  check "SIG$s: hasim exits $want, says so, leaves no file" '[ $rc -eq $want ] && grep -q "stopped by" "$T/s$s.err" && only_hidden "$T/s$s"'
done

# --- every signal ends hareal replay in its documented interrupted form --------------------------
RP=$(( 29500 + ($$ % 100) * 2 ))  # 29500-29700 (and 29000-29500 below)
$R mirror --listen 127.0.0.1:$RP --quiet --service 1ms & PIDS+=($!)
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$RP) 2>/dev/null && break; sleep 0.05; done
printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d:s\n}\n' $RP > "$T/sig.conf"
awk 'BEGIN { print "t_s,table,query"; for (i = 0; i < 3000; i++) printf "%.3f,d,q%d\n", i * 0.01, i }' > "$T/sig.csv"
for s in INT TERM HUP; do
  $R replay --config "$T/sig.conf" --trace "$T/sig.csv" --out "$T/r$s" > /dev/null 2> "$T/r$s.err" & P=$!; PIDS+=($P)
  wait_lock "$T/r$s" "$P hareal"; sleep 1; kill -$s $P; wait $P; rc=$?
  sent=$(grep -o "[0-9]* queries sent" "$T/r$s/report.txt" 2>/dev/null | grep -o "^[0-9]*")
  check "SIG$s: replay exits 128+N part-way, every query of the trace has its row, the folder finished" '[ $rc -eq $((128 + $(kill -l $s))) ] && [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" -lt 3000 ] && [ $(($(wc -l < "$T/r$s/queries.csv") - 1)) -eq 3000 ] && [ -e "$T/r$s/.hakarma.done" ] && none_left "$T/r$s"'
done

# --- a sweep's workers die with it --------------------------------------------------------------------
G='ha_strategy=nodeads,noerrors,random,roundrobin'
for sig in TERM KILL; do
  $H sweep "$LONG" --grid "$G" --duration 20m -j 2 --out "$T/sw$sig" > /dev/null 2>&1 & P=$!; PIDS+=($P)
  wait_lock "$T/sw$sig" "$P hasim sweep"
  for _ in $(seq 200); do [ $(pgrep -f -- "--out $T/sw$sig" | wc -l) -ge 3 ] && break; sleep 0.05; done
  check "sweep $sig: two workers running before" '[ $(pgrep -f -- "--out $T/sw$sig" | wc -l) -ge 3 ]'
  kill -$sig $P; wait $P 2>/dev/null
  for _ in $(seq 50); do pgrep -f -- "--out $T/sw$sig" > /dev/null || break; sleep 0.1; done
  check "sweep $sig: no worker left, no .part" '! pgrep -f -- "--out $T/sw$sig" > /dev/null && none_left "$T/sw$sig"'
done
$H merge "$T/swKILL" --out "$T/mg" > "$T/mg.out" 2>&1; rc=$?
check "a killed sweep's folder does not merge as a shard (exit 3)" '[ $rc -eq 3 ] && grep -q "did not finish" "$T/mg.out" && [ ! -e "$T/mg/sweep.meta" ]'

# --- hareal: a failed replay does not block its rerun; live's mirrors die with it -----------------
echo "t_s,table,query" > "$T/empty.csv"
$R replay --config "$T/replay.conf" --trace "$T/empty.csv" --out "$T/rp" > "$T/rp1.out" 2>&1; rc1=$?
$R replay --config "$T/replay.conf" --trace "$T/empty.csv" --out "$T/rp" > "$T/rp2.out" 2>&1; rc2=$?
check "a replay of no query fails (exit 3) and leaves nothing finished-looking" '[ $rc1 -eq 3 ] && [ ! -e "$T/rp/queries.csv" ] && [ ! -e "$T/rp/summary.csv" ]'
check "... so its rerun fails the same way, not as 'a finished run'" '[ $rc2 -eq 3 ] && ! grep -q "finished run" "$T/rp2.out"'
cp "$S/scenarios/live-demo.scn" "$T/live.scn"  # its own path: other tests run live-demo too
$R live "$T/live.scn" --out "$T/lv" --quiet > /dev/null 2>&1 & P=$!; PIDS+=($P)
for _ in $(seq 100); do [ $(pgrep -f -- "--scenario $T/live.scn" | wc -l) -ge 3 ] && break; sleep 0.1; done
check "live: three mirrors up" '[ $(pgrep -f -- "--scenario $T/live.scn" | wc -l) -ge 3 ]'
sleep 9 # past box3's stall at 8 s: a stopped mirror must die too
kill -9 $P; wait $P 2>/dev/null
for _ in $(seq 50); do pgrep -f -- "--scenario $T/live.scn" > /dev/null || break; sleep 0.1; done
check "kill -9 of hareal live leaves no mirror (the stalled one included)" '! pgrep -f -- "--scenario $T/live.scn" > /dev/null'

# --- a full disk ---------------------------------------------------------------------------------------
mkdir -p "$MNT"
if mount -t tmpfs -o size=512k tmpfs "$MNT" 2> "$T/mount.err"; then
  t0=$(date +%s)
  $H "$LONG" --duration 2h --queries --out "$MNT/o" > /dev/null 2> "$T/full.err"; rc=$?
  t1=$(date +%s)
  check "a full disk stops the run at once (exit 1, says so)" '[ $rc -eq 1 ] && grep -q "disk full" "$T/full.err" && [ $((t1 - t0)) -lt 10 ]'
  check "... and removes what it wrote" 'only_hidden "$MNT/o" && [ "$(du -sk "$MNT" | cut -f1)" -lt 64 ]'
  MP=$(( 29000 + ($$ % 100) * 5 ))
  $R mirror --listen 127.0.0.1:$MP --quiet & PIDS+=($!)
  for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$MP) 2>/dev/null && break; sleep 0.05; done
  printf 'searchd { ha_period_karma = 2  ha_ping_interval = 0 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d:s\n}\n' $MP > "$T/full.conf"
  awk 'BEGIN { print "t_s,table,query"; for (i = 0; i < 100000; i++) printf "%.4f,d,q%d\n", i * 0.0002, i }' > "$T/full.csv"
  t0=$(date +%s%N)
  timeout 60 $R replay --config "$T/full.conf" --trace "$T/full.csv" --out "$MNT/r" > /dev/null 2> "$T/rfull.err"; rc=$?
  t1=$(date +%s%N)
  check "hareal replay: a full disk stops it long before the trace's 20 s end (exit 1, says so)" '[ $rc -eq 1 ] && grep -q "disk full" "$T/rfull.err" && [ $(( (t1 - t0) / 1000000 )) -lt 12000 ]'
  check "... and removes what it wrote" 'only_hidden "$MNT/r"'
  # a mirror whose --log fills the disk stops and says so (its rows are what live --master
  # searchd computes shares from: a log that loses rows with exit 0 misleads)
  dd if=/dev/zero of="$MNT/fill" bs=4k 2> /dev/null
  rm -f "$MNT/fill"; dd if=/dev/zero of="$MNT/fill" bs=1k count=$(( $(df -k --output=avail "$MNT" | tail -1) - 8 )) 2> /dev/null
  "$R" mirror --listen 127.0.0.1:$((MP + 1)) --quiet --log "$MNT/m.csv" 2> "$T/mlog.err" & ML=$!; PIDS+=($ML)
  wait_port $((MP + 1))
  for _ in $(seq 400); do kill -0 $ML 2> /dev/null || break; "$B/hk_flood" 127.0.0.1 $((MP + 1)) halfclose > /dev/null 2>&1; done
  wait $ML; rc=$?
  check "hareal mirror --log on a full disk: exit 1, the rows it wrote counted, not a silent 0" '[ $rc -eq 1 ] && grep -q "the log could not be written after [0-9]* rows" "$T/mlog.err"'
  umount "$MNT"
elif [ "${CI:-}" = true ]; then
  check "mount a tmpfs (root, as CI is)" 'false'; cat "$T/mount.err"
else
  echo "note: cannot mount a tmpfs here ($(cat "$T/mount.err")): the full-disk checks did not run"
fi

echo "cli_outdir: $pass passed, $fail failed"
[ $fail -eq 0 ]
