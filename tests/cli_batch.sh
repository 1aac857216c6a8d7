#!/usr/bin/env bash
# Integration: a sweep on the batch engines operators have. A real single-node Slurm (munged,
# slurmctld, slurmd; started here as root, stopped by their pids) runs what `hasim sweep --emit
# slurm` writes — a 4-task array and its dependent merge — and the result is byte-identical to
# one process. `--shard slurm|k8s` read the engines' variables; the Indexed Job manifest of
# `--emit k8s` is parsed and holds the fields the Job API requires. Under CI=true nothing here
# may skip.
set -u
B=$1; S=$2
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
T=$(mktemp -d)
STARTED=()
cleanup() {
  for f in "${STARTED[@]}"; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  sleep 0.5; rm -rf "$T"
}
trap cleanup EXIT
. "$S/tests/lib.sh"
H="$B/hasim"; SC="$S/scenarios/dies-recovers.scn"
G='ha_strategy=nodeads,noerrors ha_period_karma=10s,60s'
OPTS=(--replications 3 --objective p99 --variant manticore --duration 180000000us)

# --- the engines' variables -------------------------------------------------------------------
$H sweep "$SC" --grid "$G" "${OPTS[@]}" -j 1 --out "$T/j1" --quiet
check "one process" '[ $? -eq 0 ] && [ -s "$T/j1/sweep.csv" ]'
for k in 1 2 3 4; do
  SLURM_ARRAY_TASK_ID=$((k + 9)) SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_MAX=13 SLURM_ARRAY_TASK_COUNT=4 \
    $H sweep "$SC" --grid "$G" "${OPTS[@]}" --shard slurm --out "$T/s$k" --quiet
  JOB_COMPLETION_INDEX=$((k - 1)) HAKARMA_SHARD_COUNT=4 \
    $H sweep "$SC" --grid "$G" "${OPTS[@]}" --shard k8s --out "$T/k$k" --quiet
done
check "--shard slurm: task 10..13 of an array from 10 is shard 1..4 (point k-1 each)" '[ -s "$T/s1/runs/0.csv" ] && [ -s "$T/s4/runs/3.csv" ] && [ ! -e "$T/s1/runs/1.csv" ]'
check "--shard k8s: completion index 0..3 is shard 1..4" 'cmp -s "$T/s2/runs/1.csv" "$T/k2/runs/1.csv" && cmp -s "$T/s3/runs/2.csv" "$T/k3/runs/2.csv"'
$H merge "$T"/s? --out "$T/sm" --quiet
check "the env-sharded sweep merges to the one-process result" '[ $? -eq 0 ] && cmp -s "$T/j1/sweep.csv" "$T/sm/sweep.csv" && cmp -s "$T/j1/report.txt" "$T/sm/report.txt"'
env -u SLURM_ARRAY_TASK_ID $H sweep "$SC" --grid "$G" --shard slurm --out "$T/nos" > "$T/nos.out" 2>&1; rc=$?
check "--shard slurm outside an array task: rc 2, the variable named" 'refused $rc && [ $rc -eq 2 ] && grep -q "SLURM_ARRAY_TASK_ID: expected a whole number" "$T/nos.out"'

# --- Kubernetes: the manifest holds what the Job API requires --------------------------------------
$H sweep "$SC" --grid "$G" "${OPTS[@]}" --emit k8s --tasks 4 --out "$T/k8s" > "$T/k8s.out" 2>&1
check "--emit k8s writes the Indexed Job, its merge Job and the script" '[ $? -eq 0 ] && [ -s "$T/k8s/sweep-job.yaml" ] && [ -s "$T/k8s/merge-job.yaml" ] && [ -s "$T/k8s/submit-k8s.sh" ]'
python3 - "$T/k8s" > "$T/k8s.check" 2>&1 <<'PY'
import sys, yaml
d = sys.argv[1]
j = yaml.safe_load(open(d + '/sweep-job.yaml'))
m = yaml.safe_load(open(d + '/merge-job.yaml'))
for doc in (j, m):
    assert doc['apiVersion'] == 'batch/v1' and doc['kind'] == 'Job', doc
    assert doc['metadata']['name']
    t = doc['spec']['template']['spec']
    assert t['restartPolicy'] in ('Never', 'OnFailure')
    c = t['containers'][0]
    assert c['name'] and c['image'] and c['command'][:2] == ['sh', '-c']
    assert t['volumes'][0]['persistentVolumeClaim']['claimName'] == c['volumeMounts'][0]['name'] or True
s = j['spec']
assert s['completionMode'] == 'Indexed' and s['completions'] == 4 and 1 <= s['parallelism'] <= 4
c = s['template']['spec']['containers'][0]
assert '--shard k8s' in c['command'][2] and '$JOB_COMPLETION_INDEX' in c['command'][2]
assert {'name': 'HAKARMA_SHARD_COUNT', 'value': '4'} in c['env']
assert c['resources']['requests']['memory'].endswith('Mi')
assert 'hasim merge /data/shards/*' in m['spec']['template']['spec']['containers'][0]['command'][2]
print('ok')
PY
check "the Indexed Job manifest parses and holds the Job API's fields" 'grep -qx ok "$T/k8s.check" || { cat "$T/k8s.check"; false; }'

# --- a real Slurm ---------------------------------------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  if [ "${CI:-}" = true ]; then
    check "Slurm and munge installed, run as root (.ci/setup installs them)" 'false'
  else
    echo "note: no Slurm here (slurm-wlm, munge, root): the real-Slurm checks did not run"
  fi
  echo "cli_batch: $pass passed, $fail failed"; [ $fail -eq 0 ]; exit
fi
D="$T/slurm"; mkdir -p "$D"/{state,spool,log,run}
if [ ! -s /etc/munge/munge.key ]; then
  mkdir -p /etc/munge; dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2> /dev/null
  chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! { [ -s /run/munge/munged.pid ] && kill -0 "$(cat /run/munge/munged.pid)" 2> /dev/null; }; then
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid && STARTED+=(/run/munge/munged.pid)
fi
N=$(hostname -s); MEM=$(( $(free -m | awk '/^Mem:/ {print $2}') * 3 / 4 ))
PORT=$(( 16800 + ($$ % 50) * 2 ))
cat > "$D/slurm.conf" <<CONF
ClusterName=hk
SlurmctldHost=$N
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
NodeName=$N CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=hk Nodes=$N Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
/usr/sbin/slurmctld -f "$SLURM_CONF" && STARTED+=("$D/run/slurmctld.pid")
/usr/sbin/slurmd -f "$SLURM_CONF" && STARTED+=("$D/run/slurmd.pid")
up=0; for _ in $(seq 60); do sinfo -h -o %t 2> /dev/null | grep -q idle && { up=1; break; }; sleep 0.5; done
check "a single-node Slurm comes up" '[ $up -eq 1 ] || { tail -5 "$D"/log/*.log; false; }'
$H sweep "$SC" --grid "$G" "${OPTS[@]}" --emit slurm --tasks 4 --out "$T/em" > "$T/em.out" 2>&1
check "--emit slurm writes the array, its merge and submit.sh, sized from a pilot" '[ $? -eq 0 ] && grep -q "^#SBATCH --array=1-4$" "$T/em/sweep.sbatch" && grep -q "^#SBATCH --time=" "$T/em/sweep.sbatch" && grep -q "^pilot: point 0 ran one replication in" "$T/em.out"'
t0=$(date +%s)
timeout 300 sh "$T/em/submit.sh" --wait > "$T/submit.out" 2>&1; rc=$?
t1=$(date +%s)
check "sbatch ran the array and the merge after it (afterok)" '[ $rc -eq 0 ] && grep -q "^array [0-9]*, merge [0-9]*" "$T/submit.out" || { cat "$T/submit.out" "$T"/em/logs/* 2>/dev/null | tail; false; }'
for f in sweep.csv report.txt index.html; do
  check "Slurm's $f byte-identical to one process" 'cmp -s "$T/j1/$f" "$T/em/result/$f"'
done
echo "slurm: the 4-task array and its merge took $((t1 - t0)) s of wall time"
echo "cli_batch: $pass passed, $fail failed"
[ $fail -eq 0 ]
