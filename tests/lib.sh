# tests/lib.sh: what the CLI tests share (sourced). A check passes only on what it names; a
# binary that is missing or crashed never passes one by accident:
#   refused RC   an exit code of a refusal (1-4), not a crash (126+: not runnable, killed by a
#                signal) nor success
#   crashed RC   126 or more: the binary could not run, or a signal ended it
#   wait_port P  0 once something accepts on 127.0.0.1:P (tried 200 times, 50 ms apart)
#   port_free P  nothing accepts there
#   sd_master DIR PORT KARMA PING  a Sphinx 2.2.11 master's searchd section: SphinxQL on PORT,
#                its logs (query log in sphinxql form) and pid in DIR, the HA settings given
#   sd_agent DIR INDEX API SQL  a Sphinx 2.2.11 agent's config: an RT index INDEX (a title field,
#                a gid attribute) in DIR, the agent protocol on API, SphinxQL on SQL
#   needs TEST TOOL...  each tool on PATH, else skipped (77), or failed under CI
pass=0; fail=0
# needs TEST TOOL...: every tool on PATH, else the test is skipped (77) — or fails under CI,
# where .ci/setup has installed them all
needs() {
  n=$1; shift
  for t in "$@"; do
    command -v "$t" > /dev/null && continue
    if [ "${CI:-}" = true ]; then echo "$n: $t missing: 0 passed, 1 failed"; exit 1; fi
    echo "$n: $t not installed (.ci/setup installs it): skipped"; exit 77
  done
}
check() { if eval "$2"; then pass=$((pass+1)); else echo "FAIL: $1"; fail=$((fail+1)); fi; }
refused() { [ "$1" -ge 1 ] && [ "$1" -le 4 ]; }
crashed() { [ "$1" -ge 126 ]; }
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
port_free() { ! (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
sd_master() {
  cat <<CONF
searchd
{
    listen           = 127.0.0.1:$2:mysql41
    log              = $1/searchd.log
    query_log        = $1/query.log
    query_log_format = sphinxql
    pid_file         = $1/searchd.pid
    workers          = threads
    binlog_path      =
    ha_period_karma  = $3
    ha_ping_interval = $4
}
CONF
}
sd_agent() {
  cat <<CONF
index $2
{
    type         = rt
    path         = $1/$2
    rt_field     = title
    rt_attr_uint = gid
}
searchd
{
    listen      = 127.0.0.1:$3
    listen      = 127.0.0.1:$4:mysql41
    log         = $1/searchd.log
    query_log   = $1/query.log
    pid_file    = $1/searchd.pid
    workers     = threads
    binlog_path =
}
CONF
}
