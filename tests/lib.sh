# tests/lib.sh: what the CLI tests share (sourced). A check passes only on what it names; a
# binary that is missing or crashed never passes one by accident:
#   refused RC   an exit code of a refusal (1-4), not a crash (126+: not runnable, killed by a
#                signal) nor success
#   crashed RC   126 or more: the binary could not run, or a signal ended it
#   wait_port P  0 once something accepts on 127.0.0.1:P (tried 200 times, 50 ms apart)
#   port_free P  nothing accepts there
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
refused() { [ "$1" -ge 1 ] && [ "$1" -le 4 ]; }
crashed() { [ "$1" -ge 126 ]; }
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
port_free() { ! (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
