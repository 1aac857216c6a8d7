#!/usr/bin/env bash
# Hostile input, end to end (issue 13's reproducers): each ends quickly with a clear message,
# a non-zero exit where the input is bad, no .part file left behind, and every query accounted
# for. Every check here failed on the main of 2026-12-02 (crash, hang, silent acceptance).
set -u
B=$1; S=$2
for bin in hasim hareal hk_flood; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin missing"; exit 1; }; done
T=$(mktemp -d); PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
H="$B/hasim"; R="$B/hareal"; F="$B/hk_flood"
P=$(( 28000 + ($$ % 100) * 10 ))  # 28000-29000: apart from the other tests
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# run CMD...: exit status, with a hang guard (a hang is 124, never a pass)
run() { timeout 60 "$@"; }
noparts() { [ -z "$(find "$T" -name '*.part')" ]; }

# ---- crashes and data loss ------------------------------------------------------------------
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
m = '|'.join('h%d:9312' % i for i in range(12000))
open(t + '/wide.scn', 'w').write('table d { type = distributed\n agent = %s:s\n ha_strategy = noerrors\n}\n'
    'mirror default { service = constant(1ms) }\nworkload { arrivals = poisson(50/s) duration = 5s }\n' % m)
lines = '\n'.join(' agent = %s:x' % '|'.join('127.0.0.1:%d' % (40000 + l * 1000 + j) for j in range(1000)) for l in range(11))
open(t + '/wide.conf', 'w').write('searchd { ha_ping_interval = 0 agent_connect_timeout = 200 }\ntable d {\n type = distributed\n%s\n}\n' % lines)
open(t + '/three.csv', 'w').write('t_s,table,query\n0,d,a\n0.01,d,b\n0.02,d,c\n')
PY
run "$H" "$T/wide.scn" --out "$T/wide" --quiet; rc=$?
check "a table of 12,000 mirrors simulates (rc $rc)" '[ $rc -eq 0 ] && [ -s "$T/wide/summary.csv" ] && noparts'
run "$R" replay --config "$T/wide.conf" --trace "$T/three.csv" --out "$T/wreplay" --quiet; rc=$?
check "replay over 11 lines x 1000 mirrors keeps every row (rc $rc)" '[ $rc -eq 0 ] && [ $(($(wc -l < "$T/wreplay/queries.csv") - 1)) -eq 33 ] && noparts'
run "$R" mirror --listen 127.0.0.1:$P --threads 2000000000 > /dev/null 2> "$T/thr.err"; rc=$?
check "--threads 2000000000 is refused (rc $rc)" '[ $rc -eq 2 ] && grep -q "threads: expected" "$T/thr.err"'

# ---- hangs and blow-ups ---------------------------------------------------------------------
printf 'searchd { ha_ping_interval = 0 }\ntable d { type = distributed\n agent = 127.0.0.1:%d:s\n}\n' $((P+1)) > "$T/one.conf"
printf 't_s,table,query\nsoon,d,a\n' > "$T/first.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/first.csv" --out "$T/first" > /dev/null 2> "$T/first.err"; rc=$?
check "a bad first trace row ends at once (rc $rc)" '[ $rc -eq 3 ] && grep -q "first.csv:2:1: t_s" "$T/first.err" && [ ! -e "$T/first/queries.csv" ] && noparts'
base='table d { type = distributed\n agent = a:1|b:1:s\n}\n'
for spec in "mirror default { service = lognormal(median=1ms, sigma=nan) }|sigma=nan" \
            "mirror default { service = gamma(shape=inf, scale=1ms) }|shape=inf" \
            "mirror default { service = constant(1ms) errors = nan }|errors = nan" \
            "mirror default { service = constant(1ms) }\nfault a:1 { at = 1s kind = slow(inf) }|slow(inf)" \
            "mirror default { service = constant(1ms) }\nworkload { arrivals = poisson(1e-300/s) }|1e-300" \
            "mirror default { service = constant(1ms) }\nworkload { arrivals = poisson(nan/s) }|nan/s" \
            "mirror default { service = constant(1ms) }\nworkload { arrivals = diurnal(mean=5/s, amplitude=nan) }|amplitude" \
            "mirror default { service = constant(1ms) }\nworkload { arrivals = onoff(rate=1/s, on=14000000w, off=14000000w) }|on="; do
  body=${spec%|*}; what=${spec##*|}
  case "$body" in *workload*) wl="";; *) wl='workload { arrivals = poisson(10/s) duration = 10s }\n';; esac
  printf "$base$body\n$wl" > "$T/nan.scn"
  run "$H" "$T/nan.scn" --out "$T/nan" --quiet 2> "$T/nan.err"; rc=$?
  check "'$what' is refused with its position (rc $rc)" '[ $rc -eq 3 ] && grep -q "nan.scn:[0-9]*:[0-9]*:" "$T/nan.err"'
done
printf 't_s,table,query\n1e300,d,a\n' > "$T/far.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/far.csv" --out "$T/far" > /dev/null 2> "$T/far.err"; rc=$?
check "t_s = 1e300 is refused, not slept for (rc $rc)" '[ $rc -eq 3 ] && grep -q "far.csv:2:1" "$T/far.err"'
printf 't_s,table,query\n0,d,a\n99999999,d,b\n' > "$T/span.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/span.csv" --out "$T/span" > /dev/null 2> "$T/span.err"; rc=$?
check "a trace spanning years is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "within 366 days" "$T/span.err"'
printf '/* Sun Apr 28 12:38:02.808 99999 conn 2 real 0.000 wall 0.000 found 0 */ SELECT * FROM d WHERE MATCH('"'"'x'"'"');\n' > "$T/y.log"
run "$R" replay --config "$T/one.conf" --trace "$T/y.log" --out "$T/y" > /dev/null 2> "$T/y.err"; rc=$?
check "a query log dated year 99999 is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "y.log:1:4" "$T/y.err"'
python3 -c "
print('table d { type = distributed\n agent = ' + '|'.join('h%d:1' % i for i in range(1000001)) + ':s\n}')
print('mirror default { service = constant(1ms) }\nworkload { arrivals = poisson(1/s) duration = 1s }')" > "$T/million.scn"
run "$H" "$T/million.scn" --out "$T/million" --quiet 2> "$T/million.err"; rc=$?
check "1e6 mirrors on one line: the documented limit, at once (rc $rc)" '[ $rc -eq 3 ] && grep -q "at most 100000 mirrors" "$T/million.err"'
python3 -c "
print('searchd { ha_ping_interval = 0 }\ntable d { type = distributed')
for i in range(100000): print(' agent = h%d:1:s' % i)
print('}\nmirror default { service = constant(1ms) }\nworkload { arrivals = constant(1/s) duration = 1s }')" > "$T/lines.scn"
run "$H" "$T/lines.scn" --out "$T/lines" --quiet; rc=$?
check "100,000 agent lines load and run (rc $rc; linear loading)" '[ $rc -eq 0 ] && [ -s "$T/lines/summary.csv" ]'
printf 'sim { config = /dev/zero }\n' > "$T/zero.scn"
run "$H" "$T/zero.scn" --out "$T/zero" --quiet 2> "$T/zero.err"; rc=$?
check "config = /dev/zero is refused as a device (rc $rc)" '[ $rc -eq 3 ] && grep -q "/dev/zero: expected a regular file, got a device" "$T/zero.err"'
truncate -s 17M "$T/huge.conf"; printf 'sim { config = huge.conf }\n' > "$T/huge.scn"
run "$H" "$T/huge.scn" --out "$T/huge" --quiet 2> "$T/huge.err"; rc=$?
check "a 17 MiB config stops at the size limit (rc $rc)" '[ $rc -eq 3 ] && grep -q "at most 16 MiB" "$T/huge.err"'
# ---- lax input refused with its line (a FIFO never blocks an open) --------------------------
mkfifo "$T/fifo"
printf 'sim { config = fifo }\n' > "$T/fifo.scn"
run "$H" "$T/fifo.scn" --out "$T/fifo1" --quiet 2> "$T/fifo1.err"; rc=$?
check "a FIFO as config = is refused at once (rc $rc)" '[ $rc -eq 3 ] && grep -q "expected a regular file, got a FIFO" "$T/fifo1.err"'
run "$R" replay --config "$T/one.conf" --trace "$T/fifo" --out "$T/fifo2" > /dev/null 2> "$T/fifo2.err"; rc=$?
check "a FIFO as --trace is refused at once (rc $rc)" '[ $rc -eq 3 ] && grep -q "expected a regular file, got a FIFO" "$T/fifo2.err"'
printf 't_s,table,query\n0,d,a\n2,d,b\n1,d,c\n' > "$T/unsorted.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/unsorted.csv" --out "$T/uns" > /dev/null 2> "$T/uns.err"; rc=$?
check "an unsorted CSV trace is refused at its line (rc $rc)" '[ $rc -eq 3 ] && grep -q "unsorted.csv:4:1: t_s goes back in time" "$T/uns.err"'
printf 't_s,table,query\n0,d,a\n0x1p1,d,b\n' > "$T/hex.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/hex.csv" --out "$T/hex" > /dev/null 2> "$T/hex.err"; rc=$?
check "a hex trace time (0x1p1) is refused at its line (rc $rc)" '[ $rc -eq 3 ] && grep -q "hex.csv:3:1: t_s: expected decimal seconds" "$T/hex.err"'
printf '\xEF\xBB\xBFt_s,table,query\n0,d,a\n' > "$T/bom.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/bom.csv" --out "$T/bom" > /dev/null 2> "$T/bom.err"; rc=$?
check "a UTF-8 BOM is named (rc $rc)" '[ $rc -eq 3 ] && grep -q "byte-order mark (EF BB BF)" "$T/bom.err"'
printf 'table d { type = distributed\n agent = a:1|b:1:s\n}\nmirror default { service = 5ms }\nworkload { arrivals = poisson(10/s)  duration = 0x10s }\n' > "$T/hexdur.scn"
run "$H" "$T/hexdur.scn" --out "$T/hexdur" --quiet 2> "$T/hexdur.err"; rc=$?
check "a 0x10s duration is refused at its column (rc $rc)" '[ $rc -eq 3 ] && grep -q "hexdur.scn:5:.*decimal number (no hex)" "$T/hexdur.err"'
printf '/* Sun Feb 30 10:00:00.000 2025 conn 1 real 0.001 wall 0.001 found 1 */ SELECT * FROM d WHERE MATCH(%s);\n' "'x'" > "$T/feb30.log"
run "$R" replay --config "$T/one.conf" --trace "$T/feb30.log" --out "$T/feb30" > /dev/null 2> "$T/feb30.err"; rc=$?
check "'Sun Feb 30' in a query log is not a date: refused at its line (rc $rc)" '[ $rc -eq 3 ] && grep -q "feb30.log:1:4: expected a timestamp like" "$T/feb30.err"'
printf '/* Mon Mar 02 10:00:00.000 2025 conn 1 real 0.001 wall 0.001 found 1 */ SELECT * FROM d WHERE MATCH(%s);\n' "'x'" > "$T/wday.log"
run "$R" replay --config "$T/one.conf" --trace "$T/wday.log" --out "$T/wday" > /dev/null 2> "$T/wday.err"; rc=$?
check "a weekday the date is not (2 Mar 2025 was a Sunday) is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "wday.log:1:4:" "$T/wday.err"'
{ printf 't_s,table,query\n0,d,'; head -c 2200000 /dev/zero | tr '\0' 'q'; printf '\n'; } > "$T/long.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/long.csv" --out "$T/long" > /dev/null 2> "$T/long.err"; rc=$?
check "a trace line over 1 MiB is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "long.csv:2:1: expected a line of at most 1 MiB" "$T/long.err"'
printf 'searchd { }\nsearchd { }\ntable d { type = distributed\n agent = a:1:s\n}\n' > "$T/dup.conf"
run "$R" replay --config "$T/dup.conf" --trace "$T/three.csv" --out "$T/dup" > /dev/null 2> "$T/dup.err"; rc=$?
check "a duplicate searchd section is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "dup.conf:2:1: section .searchd. (type=.searchd.) already exists" "$T/dup.err"'
printf 't_s,table,query\n0,d,a\n0.1,d,b\0c\n' > "$T/nul.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/nul.csv" --out "$T/nul" > /dev/null 2> "$T/nul.err"; rc=$?
check "a NUL byte in a trace is refused (rc $rc)" '[ $rc -eq 3 ] && grep -q "nul.csv:3:1: NUL byte" "$T/nul.err"'
printf 't_s,table,query\n0,d,"open\n0.1,d,b\n0.2,d,c\n' > "$T/quote.csv"
run "$R" replay --config "$T/one.conf" --trace "$T/quote.csv" --out "$T/quote" > /dev/null 2> "$T/quote.err"; rc=$?
check "an unterminated quote is refused at its line (rc $rc)" '[ $rc -eq 3 ] && grep -q "quote.csv:2:1: CSV: a quote is left open" "$T/quote.err"'
for o in "mirror --listen 127.0.0.1:$P --max-request 4294967296|max-request" \
         "replay --config $T/one.conf --trace $T/three.csv --seed 99999999999999999999|seed" \
         "replay --config $T/one.conf --trace $T/three.csv --concurrency 99999999999|concurrency"; do
  args=${o%|*}; what=${o##*|}
  run "$R" $args > /dev/null 2> "$T/opt.err"; rc=$?
  check "--$what overflow is refused, not wrapped (rc $rc)" '[ $rc -eq 2 ] && grep -q -- "--$what: expected" "$T/opt.err"'
done
run "$H" "$T/wide.scn" --seed 99999999999999999999 > /dev/null 2> "$T/seed.err"; rc=$?
check "hasim --seed overflow is refused (rc $rc)" '[ $rc -eq 2 ] && grep -q -- "--seed: expected" "$T/seed.err"'

# ---- the mirror under attack ----------------------------------------------------------------
"$R" mirror --listen 127.0.0.1:$((P+2)) --quiet --max-conns 100 --service "constant(50ms)" & PIDS+=($!)
wait_port $((P+2))
run "$F" 127.0.0.1 $((P+2)) slowloris 200 6 > "$T/slow.out"; rc=$?
check "200 slow senders cannot stop PINGs ($(cat "$T/slow.out"))" '[ $rc -eq 0 ]'
check "a SEARCH then a write shutdown still gets its reply" 'run "$F" 127.0.0.1 $((P+2)) halfclose'

# ---- a query log's non-searches and garbage are counted, never sent; a line far back refused
{ printf '/* Sun Apr 28 12:38:00.000 2024 conn 2 real 0.010 wall 0.010 found 0 */ SELECT * FROM d WHERE MATCH(%s);\n' "'q'"
  printf '/* Sun Apr 28 12:38:01.000 2024 conn 2 real 0.001 wall 0.001 found 0 */ SELECT 1;\n'
  printf '/* Sun Apr 28 12:38:01.000 2024 conn 2 real 0.001 wall 0.001 found 0 */ SHOW META;\n'
  echo "a line that is no log entry"; } > "$T/mixed.log"
run "$R" replay --config "$T/one.conf" --trace "$T/mixed.log" --out "$T/mixed" > "$T/mixed.out" 2>&1; rc=$?
check "SELECT 1 and SHOW are no searches, garbage is counted: 1 query sent (rc $rc)" 'grep -q "1 queries sent" "$T/mixed/report.txt" && grep -q "trace: 2 entries that are no search .* and 1 lines that are no log entry were not sent" "$T/mixed/report.txt"'
{ printf '/* Sun Apr 28 12:38:00.000 2024 conn 2 real 0.010 wall 0.010 found 0 */ SELECT * FROM d WHERE MATCH(%s);\n' "'q'"
  printf '/* Fri Apr 28 12:38:01.000 2023 conn 2 real 0.010 wall 0.010 found 0 */ SELECT * FROM d WHERE MATCH(%s);\n' "'q'"; } > "$T/back.log"
run "$R" replay --config "$T/one.conf" --trace "$T/back.log" --out "$T/back" > /dev/null 2> "$T/back.err"; rc=$?
check "a log line a year before the first is refused, not sent at once (rc $rc)" '[ $rc -eq 3 ] && grep -q "back.log:2:2: expected a timestamp at most 3600 s before the trace.s first one" "$T/back.err"'

# ---- protocol: a PING without its cookie, a SEARCH of a version no searchd speaks ----------
"$R" mirror --listen 127.0.0.1:$((P+7)) --quiet & PIDS+=($!); wait_port $((P+7))
python3 - $((P+7)) > "$T/proto.out" <<'PY'
import socket, struct, sys
def ask(code, ver, body):
    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5); s.recv(4)
    s.sendall(struct.pack('>I', 1) + struct.pack('>HHI', code, ver, len(body)) + body)
    d = b''
    while True:
        x = s.recv(4096)
        if not x: break
        d += x
    print(struct.unpack('>H', d[:2])[0], d[12:].decode(errors='replace'))
ask(9, 0x100, b'')
ask(0, 0xFFFF, b'\0' * 20)
ask(0, 0x1FF, b'\0' * 20)
PY
check "a PING with a 0-byte body gets an ERROR reply saying so" 'grep -q "^1 hakarma mirror: PING: expected a 4-byte cookie, got 0 bytes" "$T/proto.out"'
check "SEARCH version 0xFFFF: searchd's major version mismatch" 'grep -q "^1 major command version mismatch (client is v.255.255" "$T/proto.out"'
check "SEARCH version 1.255: searchd's 'client version is higher'" 'grep -q "^1 client version is higher than daemon version (client is v.1.255" "$T/proto.out"'

echo "cli_hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
