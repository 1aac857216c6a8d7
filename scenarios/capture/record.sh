#!/usr/bin/env bash
# record.sh [BUILD_DIR] — records the production evidence that ships in this folder, from a real
# Sphinx 2.2.11 master (searchd from Debian's sphinxsearch) over three hareal mirrors answering
# in 4, 6 and 9 ms, ha_strategy = noerrors, ha_period_karma = 2 s, ha_ping_interval = 500 ms,
# loaded by one mysql client at about 50 searches a second for 24 s. The middle mirror is killed
# 8 s in and restarted 8 s later: the incident. It writes, beside itself:
#   sphinx.conf        the master's config (its file paths made relative)
#   status.table.txt   SHOW AGENT STATUS at the end as `mysql -t` prints it (the boxed table),
#   status.tsv         ... `mysql -B` (tab-separated), status.vertical.txt `mysql -E`,
#   status.silent.txt  ... `mysql -s -N` (no column names)
#   series/            a snapshot every karma period, status.EPOCH.tsv, as a cron scrape saves them
#   query.log          the master's query log (sphinxql format), searchd.log its log
# Rerun it to record anew (the times and counts change; the story does not). Needs searchd and
# mysql (.ci/setup installs them) and a built hareal; loopback only; stops what it started.
set -eu
B=${1:-build}
D=$(cd "$(dirname "$0")" && pwd)
command -v searchd > /dev/null && command -v mysql > /dev/null || { echo "record.sh: needs searchd and mysql" >&2; exit 1; }
[ -x "$B/hareal" ] || { echo "record.sh: no $B/hareal: build first" >&2; exit 1; }
T=$(mktemp -d); PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
P=$(( 21000 + ($$ % 90) * 10 )); M1=$P; M2=$((P+1)); M3=$((P+2)); QL=$((P+3))
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
mirror() { exec "$B/hareal" mirror --listen 127.0.0.1:$1 --service "constant($2ms)" --quiet; }
mirror $M1 4 & PIDS+=($!); mirror $M2 6 & m2=$!; PIDS+=($m2); mirror $M3 9 & PIDS+=($!)
mkdir -p "$T/prod"
conf() { # $1: the folder its files are in
  cat <<CONF
# A Sphinx 2.2.11 master of one distributed index over three mirrors (recorded by record.sh)
index d
{
    type        = distributed
    agent       = 127.0.0.1:$M1|127.0.0.1:$M2|127.0.0.1:$M3:shard
    ha_strategy = noerrors
}
searchd
{
    listen           = 127.0.0.1:$QL:mysql41
    log              = $1searchd.log
    query_log        = $1query.log
    query_log_format = sphinxql
    pid_file         = $1searchd.pid
    workers          = threads
    binlog_path      =
    ha_period_karma  = 2
    ha_ping_interval = 500
}
CONF
}
conf "$T/prod/" > "$T/prod.conf"
wait_port $M1; wait_port $M2; wait_port $M3
searchd --config "$T/prod.conf" --nodetach > "$T/prod/searchd.out" 2>&1 & PIDS+=($!)
wait_port $QL; sleep 1
mkdir -p "$T/series"
( while :; do t=$(date +%s.%N); mysql -h127.0.0.1 -P$QL -B -e "SHOW AGENT STATUS" > "$T/series/.next" 2>&1 &&
    mv "$T/series/.next" "$T/series/status.${t%??????}.tsv"; sleep 2; done ) & scrape=$!; PIDS+=($scrape)
( for i in $(seq 1200); do echo "SELECT * FROM d WHERE MATCH('q$((i % 50))');"; sleep 0.02; done ) |
  mysql -h127.0.0.1 -P$QL --force > /dev/null 2>&1 & load=$!; PIDS+=($load)
sleep 8; kill $m2; wait $m2 2>/dev/null || true
sleep 8; mirror $M2 6 & PIDS+=($!)
wait $load || true; sleep 2.5
kill $scrape 2>/dev/null || true
q() { mysql -h127.0.0.1 -P$QL "$@" -e "SHOW AGENT STATUS"; }
rm -rf "$D/series"; mkdir -p "$D/series"
q -t > "$D/status.table.txt"; q -B > "$D/status.tsv"; q -E > "$D/status.vertical.txt"; q -s -N > "$D/status.silent.txt"
cp "$T"/series/status.*.tsv "$D/series/"
cp "$T/prod/query.log" "$D/query.log"; cp "$T/prod/searchd.log" "$D/searchd.log"
conf "" > "$D/sphinx.conf"
echo "record.sh: $(ls "$D/series" | wc -l) snapshots, $(grep -c '^/\*' "$D/query.log") queries logged, in $D"
