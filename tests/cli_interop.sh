#!/usr/bin/env bash
# Interop with the real peer, Sphinx 2.2.11 searchd (Debian sphinxsearch), driven with mysql:
#  1. searchd as master over two hareal mirrors: it merges our replies without warnings, round
#     robin alternates them, and our mirrors saw its queries;
#  2. hareal replay as master against searchd serving a real RT index on two API ports;
#  3. our Sphinx 2.2.11 SHOW AGENT STATUS layout has exactly searchd's keys in its order;
#  4. searchd's own sphinxql query log replays through hareal against our mirrors;
#  5. from production files to a prediction: searchd as master of 4 hareal mirrors answering in
#     10/5/30/3 ms under noerrors, loaded for 12 s by mysqlslap; its SHOW AGENT STATUS and query
#     log go to hasim init; the simulated shares match what searchd did;
#  6. the Debian sample config (agent lines uncommented): hakarma skips the agents searchd skips.
set -u
B=$1; S=$2
. "$S/tests/lib.sh"
for bin in hareal hasim; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
if ! command -v searchd > /dev/null || ! command -v mysql > /dev/null; then
  if [ "${CI:-}" = true ]; then echo "cli_interop: searchd or mysql missing: 0 passed, 1 failed"; exit 1; fi
  echo "cli_interop: searchd/mysql not installed (.ci/setup installs them): skipped"; exit 77
fi
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "${HK_KEEP:-}" ] && cp -r "$T" "$HK_KEEP"; rm -rf "$T"; }
trap cleanup EXIT
H="$B/hareal"
P=$(( 21000 + ($$ % 190) * 10 ))  # 21000-22910: below the ephemeral range, apart from other tests
M1=$P; M2=$((P+1)); API1=$((P+2)); API2=$((P+3)); QL=$((P+4))
M3=$((P+5)); M4=$((P+6)); M5=$((P+7)); M6=$((P+8)); DS=$((P+9)); QL2=$((P+10))
M7=$((P+11)); M8=$((P+12))
sql() { mysql -h127.0.0.1 -P$QL -N -B -e "$1" 2>&1; }

"$H" mirror --listen 127.0.0.1:$M1 --service "constant(2ms)" --log "$T/m1.csv" --matches 2 --quiet & PIDS+=($!)
"$H" mirror --listen 127.0.0.1:$M2 --service "constant(2ms)" --log "$T/m2.csv" --matches 2 --quiet & PIDS+=($!)
i=3; for ms in 10 5 30 3; do
  "$H" mirror --listen 127.0.0.1:$((P + i + 2)) --service "constant(${ms}ms)" --log "$T/m$i.csv" --quiet & PIDS+=($!); i=$((i+1))
done
# the ERROR evidence of 5b: M7 answers 5% of its queries with an ERROR reply
"$H" mirror --listen 127.0.0.1:$M7 --service "lognormal(median=3ms, sigma=0.4)" --errors 0.05 --seed 3 --log "$T/127.0.0.1_$M7.csv" --quiet & PIDS+=($!)
"$H" mirror --listen 127.0.0.1:$M8 --service "lognormal(median=3ms, sigma=0.4)" --seed 4 --log "$T/127.0.0.1_$M8.csv" --quiet & PIDS+=($!)
cat > "$T/sphinx.conf" <<CONF
index dist
{
    type        = distributed
    agent       = 127.0.0.1:$M1:shard1|127.0.0.1:$M2:shard1
    ha_strategy = roundrobin
}
index distp
{
    type             = distributed
    agent_persistent = 127.0.0.1:$M1:pshard
}
index rt1
{
    type         = rt
    path         = $T/rt1
    rt_field     = title
    rt_attr_uint = gid
}
searchd
{
    listen           = 127.0.0.1:$API1
    listen           = 127.0.0.1:$API2
    listen           = 127.0.0.1:$QL:mysql41
    log              = $T/searchd.log
    query_log        = $T/query.log
    query_log_format = sphinxql
    pid_file         = $T/searchd.pid
    workers          = threads
    binlog_path      =
    ha_period_karma  = 2
    ha_ping_interval = 0
    persistent_connections_limit = 4
}
CONF
searchd --config "$T/sphinx.conf" --nodetach > "$T/searchd.out" 2>&1 & PIDS+=($!)
wait_port $QL; wait_port $M1; wait_port $M2
check "searchd 2.2.11 is up" 'grep -q "accepting connections" "$T/searchd.out"'

# 1. searchd master -> hareal mirrors
for i in 1 2 3 4 5 6; do out=$(sql "SELECT * FROM dist WHERE MATCH('hello world $i'); SHOW META"); echo "$out" >> "$T/meta.txt"; done
check "searchd merged every reply (6 results, no error)" '[ $(grep -c "^total	" "$T/meta.txt") -eq 6 ] && ! grep -qi "error" "$T/meta.txt"'
check "no warnings in SHOW META" '! grep -qi "^warning" "$T/meta.txt"'
# what searchd passes on to its SQL client: a well-formed result, the id column, our 2 documents
res=$(mysql -h127.0.0.1 -P$QL -B -e "SELECT * FROM dist WHERE MATCH('rows')" 2>&1)
check "the mysql client gets a result with its id column [$(echo $res)]" '[ "$(echo $res)" = "id 1 2" ]'
sql "SELECT * FROM dist WHERE MATCH('rows'); SHOW META" > "$T/rows.txt"
check "SHOW META counts the 2 documents" 'grep -qx "total	2" "$T/rows.txt" && grep -qx "total_found	2" "$T/rows.txt"'
check "round robin: 3 queries on each mirror" '[ $(grep -c "hello world" "$T/m1.csv") -eq 3 ] && [ $(grep -c "hello world" "$T/m2.csv") -eq 3 ]'

check "mirrors saw the index list" 'grep -q ",shard1,hello world 1," "$T/m1.csv" "$T/m2.csv"'
# the 15-period window (30 s here): the 1-period one starts anew every 2 s karma block
st=$(sql "SHOW AGENT STATUS LIKE 'ag_%_15periods_succeeded_queries'")
check "searchd counts our replies as successes (6 + 2)" '[ $(echo "$st" | awk "{s+=\$2} END {print s}") -eq 8 ]'

# persistent agent: searchd sends PERSIST once, then its queries on the same connection
for i in 1 2 3 4; do sql "SELECT * FROM distp WHERE MATCH('persist $i')" >> "$T/meta.txt"; done
check "persistent agent: 4 queries served" '[ $(grep -c ",pshard,persist" "$T/m1.csv") -eq 4 ]'
check "persistent agent: all on one connection" '[ $(grep ",pshard," "$T/m1.csv" | cut -d, -f2 | sort -u | wc -l) -eq 1 ]'
check "persistent agent: no errors" '! grep -qi "error" "$T/meta.txt"'

# 2. hareal master -> searchd mirrors (a real RT index)
sql "INSERT INTO rt1 (id, title, gid) VALUES (1,'hello world',1),(2,'hello there',2),(3,'goodbye',3)" > /dev/null
printf 'searchd { ha_period_karma = 2  ha_ping_interval = 300 }\ntable d {\n type = distributed\n agent = 127.0.0.1:%d|127.0.0.1:%d:rt1\n ha_strategy = nodeads\n}\n' $API1 $API2 > "$T/rep.conf"
{ echo "t_s,table,query"; for i in $(seq 0 59); do printf '0.%02d,d,hello\n' $i; done; } > "$T/t.csv"
timeout 30 "$H" replay --config "$T/rep.conf" --trace "$T/t.csv" --out "$T/rep" --variant sphinx2 > "$T/rep.out" 2>&1
check "replay against searchd exits 0" '[ $? -eq 0 ]'
check "all 60 queries ok (searchd replies parsed)" '[ $(grep -c ",ok," "$T/rep/queries.csv") -eq 60 ]'
check "both searchd mirrors used" 'grep -q "127.0.0.1:$API1,1,ok" "$T/rep/queries.csv" && grep -q "127.0.0.1:$API2,1,ok" "$T/rep/queries.csv"'
check "searchd logged our queries on rt1" '[ $(grep -c "FROM rt1 WHERE MATCH(.hello.)" "$T/query.log") -ge 60 ]'
printf 'table d {\n type = distributed\n agent = 127.0.0.1:%d:nosuchindex\n}\n' $API1 > "$T/bad.conf"
timeout 30 "$H" replay --config "$T/bad.conf" --trace "$T/t.csv" --out "$T/bad" > /dev/null 2>&1
check "unknown index: searchd's ERROR reply is a remote_error row" '[ $(grep -c ",remote_error," "$T/bad/queries.csv") -eq 60 ]'

# 3. SHOW AGENT STATUS layout against the real one
sql "SHOW AGENT STATUS" | awk '{print $1}' | sed 's/^ag_[0-9]*_/ag_N_/' | awk '!s[$0]++' > "$T/real_keys"
sed -n '/^Key/,/^$/p' "$T/rep/agent_status.txt" | sed 1d | awk 'NF{print $1}' | sed 's/^ag_[0-9]*_/ag_N_/' | awk '!s[$0]++' > "$T/our_keys"
check "Sphinx 2.2.11 layout: same keys, same order ($(wc -l < "$T/real_keys") keys)" 'diff -q "$T/real_keys" "$T/our_keys" > /dev/null'
sql "SHOW AGENT dist STATUS" | awk '{print $1}' > "$T/real_dist"
check "dist-table rows as searchd prints them" 'grep -qx "dstindex_1mirror2_probability_weight" "$T/real_dist" && grep -q "^dstindex_1mirror2_probability_weight	[0-9]*$" "$T/rep/agent_status.txt"'

# 4. searchd's own query log as a trace, against our mirrors
printf 'searchd { ha_period_karma = 2 }\ntable dist {\n type = distributed\n agent = 127.0.0.1:%d|127.0.0.1:%d:shard1\n}\n' $M1 $M2 > "$T/ql.conf"
timeout 30 "$H" replay --config "$T/ql.conf" --trace "$T/query.log" --format sphinxql --out "$T/ql" --speed 10 > /dev/null 2>&1
check "query log replay: the 8 dist searches, all ok" '[ $(grep -c ",dist,1,.*,ok," "$T/ql/queries.csv") -eq 8 ]'
check "query log replay: rt1 searches have rows too (unknown table here)" '[ $(grep -c ",unknown_table," "$T/ql/queries.csv") -ge 60 ]'

# 5. production files -> hasim init -> a prediction of what searchd did: a second searchd, pings on
mkdir -p "$T/prod"
cat > "$T/prod.conf" <<CONF
index d2
{
    type        = distributed
    agent       = 127.0.0.1:$M3|127.0.0.1:$M4|127.0.0.1:$M5|127.0.0.1:$M6:d2shard
    ha_strategy = noerrors
}
index e2
{
    type        = distributed
    agent       = 127.0.0.1:$M7|127.0.0.1:$M8:e2a
    agent       = 127.0.0.1:$M8:e2b
    ha_strategy = random
}
CONF
sd_master "$T/prod" $QL2 2 200 >> "$T/prod.conf"
wait_port $M3; wait_port $M4; wait_port $M5; wait_port $M6
searchd --config "$T/prod.conf" --nodetach > "$T/prod/searchd.out" 2>&1 & PIDS+=($!)
wait_port $QL2; sleep 0.5  # a few pings: every mirror alive before the load
timeout 12 mysqlslap -h127.0.0.1 -P$QL2 --concurrency=2 --iterations=1 --number-of-queries=1000000 \
  --create-schema=d2 --query="SELECT * FROM d2 WHERE MATCH('load')" > /dev/null 2>&1
mysql -h127.0.0.1 -P$QL2 -B -e "SHOW AGENT STATUS" > "$T/prod_status.tsv" 2>&1
# the same status as the real client prints it boxed (-t) and vertical (-E), straight after
mysql -h127.0.0.1 -P$QL2 -t -e "SHOW AGENT STATUS" > "$T/prod_status.box" 2>&1
mysql -h127.0.0.1 -P$QL2 -E -e "SHOW AGENT STATUS" > "$T/prod_status.vert" 2>&1
sleep 0.2
n=(); for i in 3 4 5 6; do n+=($(grep -c ',d2shard,' "$T/m$i.csv")); done
tot=$((n[0] + n[1] + n[2] + n[3]))
check "searchd served the load ($tot queries over the 4 mirrors)" '[ $tot -gt 500 ]'
"$B/hasim" init --config "$T/prod.conf" --status "$T/prod_status.tsv" --log "$T/prod/query.log" --out "$T/model.scn" > /dev/null 2> "$T/init.err"
check "init reads searchd's config, status and log" '[ $? -eq 0 ] && grep -q "variant = sphinx2" "$T/model.scn" && grep -q "arrivals = trace($T/prod/query.log)" "$T/model.scn"'
# searchd times a query from its own side: on this 2-core VM under load its 10 ms mirror has
# read 12.1-12.9 ms here today (on the commit that passed CI before too), so 9-13.9 ms
check "init: box means measured (10 ms mirror)" 'grep -A3 "^mirror 127.0.0.1:$M3 " "$T/model.scn" | grep -Eq "mean (9|1[0-3])\.[0-9]+ ms measured"'
for form in box vert; do
  "$B/hasim" init --config "$T/prod.conf" --status "$T/prod_status.$form" --log "$T/prod/query.log" --out "$T/model-$form.scn" > /dev/null 2>&1; rc=$?
  # the status moved on between the captures (pings every 200 ms, a few queries): the hosts,
  # the sections and each measured mean must agree; the fitted family may not (gamma and
  # lognormal tie on these constant mirrors, KS 0.014 against 0.015, and a 1% move of the
  # status's start tips EM's choice), nor whether init's estimate of the pings among a
  # mirror's events kicks in ("(N events less ~P pings)": CI saw it in one capture and not
  # the next, a mean then more than 2% apart), so the means within 10%, printed when not
  diff <(grep "^mirror\|^    service" "$T/model.scn" | sed -E "s/[0-9.]*//g; s/ *=.*//; s/ \([^)]*pings\)//") <(grep "^mirror\|^    service" "$T/model-$form.scn" | sed -E "s/[0-9.]*//g; s/ *=.*//; s/ \([^)]*pings\)//") > "$T/forms.diff"
  check "init reads the real mysql client's -$([ $form = box ] && echo t || echo E) output like its -B" '[ $rc -eq 0 ] && [ "$(grep -c "^mirror 127" "$T/model-$form.scn")" = "$(grep -c "^mirror 127" "$T/model.scn")" ] && { [ ! -s "$T/forms.diff" ] || { sed "s/^/  /" "$T/forms.diff"; false; }; } && paste <(grep -o "mean [0-9.]* ms measured" "$T/model.scn" | grep -o "[0-9.]*") <(grep -o "mean [0-9.]* ms measured" "$T/model-$form.scn" | grep -o "[0-9.]*") | awk "{ if (\$1 <= 0 || (\$2 - \$1) / \$1 > 0.10 || (\$1 - \$2) / \$1 > 0.10) { bad = 1; print \"  means \" \$1 \" and \" \$2 } } END { exit bad || NR < 4 }"'
done
"$B/hasim" "$T/model.scn" --out "$T/model" --quiet 2> "$T/model.err"
check "the model runs" '[ $? -eq 0 ] && [ -s "$T/model/summary.csv" ]'
for i in 3 4 5 6; do
  real=$(awk -v a=${n[$((i-3))]} -v t=$tot 'BEGIN {printf "%.3f", a / t}')
  sim=$(awk -F, -v m="127.0.0.1:$((P + i + 2))" '$1 == "d2" && $3 == m {printf "%.3f", $5}' "$T/model/summary.csv")
  check "d2 mirror $((i-2)): predicted share $sim vs searchd's $real (within 4 points)" 'awk -v a="$sim" -v b="$real" "BEGIN {d = a - b; exit !(a != \"\" && d < 0.04 && d > -0.04)}"'
done

# 5b. the log's ERROR evidence: searchd logs each ERROR reply of M7 as a partial result
# ("warning=index e2: agent 127.0.0.1:M7: remote error: ..."), which SHOW AGENT STATUS cannot
# show; init turns it into M7's error rate and the agents=() times into a fitted shape, and the
# model's partial results come back at the log's rate
wait_port $M7; wait_port $M8
timeout 8 mysqlslap -h127.0.0.1 -P$QL2 --concurrency=2 --iterations=1 --number-of-queries=1000000 \
  --create-schema=e2 --query="SELECT * FROM e2 WHERE MATCH('load')" > /dev/null 2>&1
sleep 0.2
logq=$(grep -c "FROM e2 " "$T/prod/query.log"); logw=$(grep "FROM e2 " "$T/prod/query.log" | grep -c "warning=index e2: agent 127.0.0.1:$M7: remote error")
all=$(grep -c "^/\* " "$T/prod/query.log")
check "searchd logged M7's ERROR replies as partial results ($logw of $logq e2 queries)" '[ "$logq" -gt 500 ] && [ "$logw" -gt 5 ]'
"$B/hasim" init --config "$T/prod.conf" --log "$T/prod/query.log" --variant sphinx2 --out "$T/ev.scn" > /dev/null 2> "$T/ev.err"
check "init: M7's error rate from the log" '[ $? -eq 0 ] && grep -A3 "^mirror 127.0.0.1:$M7 " "$T/ev.scn" | grep -Eq "^    errors = 0\.0[3-7][0-9]* +# the query log: $logw of the"'
check "init: the e2 lines' shape fitted from agents=() (KS distance under 0.05)" 'grep -A2 "^mirror 127.0.0.1:$M8 " "$T/ev.scn" | grep -Eq "service = (lognormal|gamma)\(.*fitted to [0-9]+ agents=\(\) times of table e2, agent line 1 \((lognormal|gamma); KS distance 0\.0[0-4]"'
# the 10 ms mirror is a constant plus the machine's jitter, its times cut to the millisecond: the
# fit's KS distance on its part swings with the machine's load (0.02-0.06 here, 0.10 and 0.18
# under CI), so what is pinned is the claim: its mean kept, its spread its own (a mixture
# component, narrow: lognormal sigma under 0.3 or gamma shape over 11, where one lognormal
# over the line's four mirrors gave sigma 0.95); the line printed when it fails
m3=$(grep -A3 "^mirror 127.0.0.1:$M3 " "$T/model.scn" | grep "^    service")
narrow() { echo "$m3" | sed -n 's/.*service = lognormal(median=[0-9.]*ms, sigma=\([0-9.]*\)).*/s \1/p; s/.*service = gamma(shape=\([0-9.e+]*\),.*/g \1/p' |
  awk '{ exit !(($1 == "s" && $2 < 0.3) || ($1 == "g" && $2 > 11)) }'; }
check "init: d2's mirrors keep their measured means and get their own spread, not the line's" 'echo "$m3" | grep -Eq "# mean (9|1[0-3])\.[0-9]+ ms measured; its own spread: the [0-9]+ agents=\(\) times of table d2, agent line 1 fitted as the mixture of its 4 mirrors" && narrow || { echo "  $m3"; false; }'
"$B/hasim" "$T/ev.scn" --out "$T/ev" --quiet 2> /dev/null
# the tail (issue 37): init's model of the whole capture (d2's and e2's load, the status after
# both) predicts the log's p99 and p99.9 within 20%, and e2's lognormal mirrors' p99 within 25% of
# what each logged itself (bench/tail.sh; d2's mirrors are constant: their spread is the master's).
# A measurement: not under the sanitizers, whose slowdown the master's times take and the
# mirrors' own logs do not (one run there: a mirror's p99 1.33x its own).
if [ -z "${HK_SANITIZED:-}" ]; then
  mysql -h127.0.0.1 -P$QL2 -B -e "SHOW AGENT STATUS" > "$T/prod_status2.tsv" 2>&1
  "$S/bench/tail.sh" "$B" "$T/prod.conf" "$T/prod_status2.tsv" "$T/prod/query.log" "$T/127.0.0.1_$M7.csv" "$T/127.0.0.1_$M8.csv" > "$T/tail.out" 2>&1; rc=$?
  check "init's model predicts the capture's tail: $(tr -s " \n" " " < "$T/tail.out")" '[ $rc -eq 0 ] && [ $(grep -c "ratio" "$T/tail.out") -eq 4 ]'
fi
sim_part=$(sed -n 's/^queries: \([0-9]*\): answered [0-9]* (ok [0-9]*, partial \([0-9]*\)).*/\2 \1/p' "$T/ev/report.txt")
check "the model's partial results at the log's rate within a point (log $logw/$all, model ${sim_part:-none})" '[ -n "$sim_part" ] && awk -v s="$sim_part" -v w=$logw -v a=$all "BEGIN {split(s, x, \" \"); d = x[1] / x[2] - w / a; exit !(x[2] > 0 && d < 0.01 && d > -0.01)}"'

# 6. the Debian sample config: the agents searchd skips, hakarma skips, for the same reasons
zcat /usr/share/doc/sphinxsearch/sphinx.conf.sample.gz | sed -e 's/^\(\s*\)# agent\(\s*=\)/\1agent\2/' \
  -e "s|^\(\s*\)listen\(\s*\)= 127.0.0.1:9312\$|\1listen\2= 127.0.0.1:$DS|" -e '/listen.*9306:mysql41/d' \
  -e "s|/var/log/sphinxsearch/|$T/smp/|" -e "s|/run/sphinxsearch/|$T/smp/|" -e "s|/var/lib/sphinxsearch/data/|$T/smp/|" > "$T/sample.conf"
mkdir -p "$T/smp"  # its own log and pid file: the searchd above still runs
timeout 10 searchd --config "$T/sample.conf" --nodetach > "$T/sample.out" 2>&1 & sp=$!
for _ in $(seq 100); do grep -q "accepting connections\|FATAL" "$T/sample.out" && break; sleep 0.05; done
kill $sp 2> /dev/null; wait $sp 2> /dev/null
grep -o "agent '[^']*': .* - SKIPPING AGENT" "$T/sample.out" | sort > "$T/real_skips"
"$B/hasim" init --config "$T/sample.conf" --variant sphinx2 > /dev/null 2> "$T/our.err"
grep -o "agent '[^']*': .* - SKIPPING AGENT" "$T/our.err" | sort > "$T/our_skips"
check "searchd skipped agents of the sample ($(wc -l < "$T/real_skips"))" '[ $(wc -l < "$T/real_skips") -ge 3 ]'
check "the same agents skipped" 'diff <(cut -d: -f1 "$T/real_skips" | sort) <(cut -d: -f1 "$T/our_skips" | sort) > /dev/null && [ "$(cut -d"'"'"'" -f2 "$T/real_skips")" = "$(cut -d"'"'"'" -f2 "$T/our_skips")" ]'
# searchd resolves host names while it reads a line (a sandbox without DNS fails server3); hakarma
# never resolves: those reasons are left out, every other reason must be searchd's word for word
check "the same reasons (name lookups aside)" 'diff <(grep -v "failed to lookup host" "$T/real_skips") <(grep -Ff <(grep -v "failed to lookup host" "$T/real_skips" | cut -d"'"'"'" -f2) "$T/our_skips") > /dev/null'

echo "cli_interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
