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

# --- Kubernetes: the manifest holds what the Job API requires, with the types it requires -------
$H sweep "$SC" --grid "$G" "${OPTS[@]}" --emit k8s --tasks 4 --out "$T/k8s" > "$T/k8s.out" 2>&1
check "--emit k8s writes the Indexed Job, its merge Job, the script and the bundle" '[ $? -eq 0 ] && [ -s "$T/k8s/sweep-job.yaml" ] && [ -s "$T/k8s/merge-job.yaml" ] && [ -s "$T/k8s/submit-k8s.sh" ] && [ -s "$T/k8s/bundle/scenario.scn" ]'
cat > "$T/jobcheck.py" <<'PY'
import sys, yaml
def req(d, k, t, where):
    assert k in d, '%s: %s is required' % (where, k)
    assert isinstance(d[k], t) and not isinstance(d[k], bool), '%s.%s: expected %s, got %r' % (where, k, t, d[k])
    return d[k]
def job(path, indexed, n):
    doc = yaml.safe_load(open(path))
    assert req(doc, 'apiVersion', str, 'Job') == 'batch/v1' and req(doc, 'kind', str, 'Job') == 'Job'
    assert req(req(doc, 'metadata', dict, 'Job'), 'name', str, 'metadata')
    spec = req(doc, 'spec', dict, 'Job')
    for k in ('completions', 'activeDeadlineSeconds'):
        assert req(spec, k, int, 'spec') >= 1
    pod = req(req(spec, 'template', dict, 'spec'), 'spec', dict, 'template')
    assert req(pod, 'restartPolicy', str, 'pod') in ('Never', 'OnFailure')
    c = req(pod, 'containers', list, 'pod')[0]
    req(c, 'name', str, 'container'); req(c, 'image', str, 'container')
    cmd = req(c, 'command', list, 'container')
    assert all(isinstance(a, str) for a in cmd) and cmd[0] == '/usr/local/bin/hasim', cmd
    for e in c.get('env', []):
        req(e, 'name', str, 'env'); req(e, 'value', str, 'env')
    vm = req(c, 'volumeMounts', list, 'container')[0]
    vol = req(pod, 'volumes', list, 'pod')[0]
    assert vm['name'] == vol['name'] and req(vol, 'persistentVolumeClaim', dict, 'volume')['claimName']
    if indexed:
        assert spec['completionMode'] == 'Indexed' and spec['completions'] == n and 1 <= req(spec, 'parallelism', int, 'spec') <= n
        assert cmd[-2:] == ['--out', '/data/shards/$(JOB_COMPLETION_INDEX)'] and '--shard' in cmd
        assert {'name': 'HAKARMA_SHARD_COUNT', 'value': str(n)} in c['env']
        assert c['resources']['requests']['memory'].endswith('Mi')
    return cmd
d, n = sys.argv[1], int(sys.argv[2])
job(d + '/sweep-job.yaml', True, n)
m = job(d + '/merge-job.yaml', False, 1)
assert m[1] == 'merge' and m[2:2 + n] == ['/data/shards/%d' % k for k in range(n)], m
print('ok')
PY
python3 "$T/jobcheck.py" "$T/k8s" 4 > "$T/k8s.check" 2>&1
check "the manifests parse and hold the Job API's required fields, with their types" 'grep -qx ok "$T/k8s.check" || { cat "$T/k8s.check"; false; }'
check "the Job's deadline: the pilot's estimate and a stated margin for scheduling and the pull" 'grep -q "+ 900 s for scheduling and the image pull" "$T/k8s/sweep-job.yaml"'

# --- the image: every library hasim links comes from a package .ci/Dockerfile installs ---------------
# (a sanitizer build links its runtimes too: not what the image's Release build needs)
need=$(ldd "$H" | awk '$3 ~ /^\// {print $3}' | xargs -n1 readlink -f | xargs dpkg -S 2>/dev/null | cut -d: -f1 | sort -u | grep -Ev '^(libc6|libasan[0-9]*|libubsan[0-9]*|libstdc\+\+6|libgcc-s1)$')
miss=""; for p in $need; do grep -q " $p\b" "$S/.ci/Dockerfile" || miss="$miss $p"; done
check "the Dockerfile's runtime packages hold every library hasim links (${need//$'\n'/ })" '[ -n "$need" ] && [ -z "$miss" ] || { echo "missing:$miss"; false; }'

# --- hostile names: what is emitted runs as written, and runs nothing hidden in a name -------------------
SB="$T/standin"; mkdir -p "$SB"
cat > "$SB/sbatch" <<'SH'
#!/bin/bash
# sbatch stand-in: runs the script's array tasks in turn with the variables Slurm sets; prints a job id
script=""; for a in "$@"; do case "$a" in -*) ;; *) script="$a" ;; esac; done
n=$(sed -n 's/^#SBATCH --array=1-\([0-9]*\)$/\1/p' "$script")
id=$(( $(cat "$STANDIN_STATE/n" 2>/dev/null || echo 100) + 1 )); echo $id > "$STANDIN_STATE/n"
for i in $(seq 1 "${n:-1}"); do
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=${n:-1} bash "$script" >> "$STANDIN_STATE/log" 2>&1 || exit 1
done
echo $id
SH
cat > "$SB/kubectl" <<'PY'
#!/usr/bin/env python3
# kubectl stand-in: `apply -f JOB` runs each completion's command as Kubernetes would (no shell;
# $(VAR) expanded from the container's env, $$ a dollar), /data on $STANDIN_DATA; `get job NAME`
# prints its conditions
import json, os, re, subprocess, sys, yaml
st = os.environ['STANDIN_STATE']; a = sys.argv[1:]
if a[:2] == ['apply', '-f']:
    doc = yaml.safe_load(open(a[2])); spec = doc['spec']; c = spec['template']['spec']['containers'][0]
    ok = os.environ.get('STANDIN_FAIL') != doc['metadata']['name']
    for i in range(spec.get('completions', 1)):
        env = dict(os.environ, **{e['name']: e['value'] for e in c.get('env', [])})
        if spec.get('completionMode') == 'Indexed':
            env['JOB_COMPLETION_INDEX'] = str(i)
        exp = lambda s: re.sub(r'\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)', lambda m: '$' if m.group(0) == '$$' else env.get(m.group(1), m.group(0)), s)
        cmd = [exp(x) for x in c['command']]
        cmd = [os.environ['STANDIN_DATA'] + x[5:] if x.startswith('/data/') else x for x in cmd]
        cmd[0] = os.environ['STANDIN_HASIM']
        ok = ok and subprocess.run(cmd, env=env).returncode == 0
    json.dump(ok, open(os.path.join(st, doc['metadata']['name']), 'w'))
    print('job.batch/%s created' % doc['metadata']['name'])
elif a[:2] == ['get', 'job']:
    print('Complete ' if json.load(open(os.path.join(st, a[2]))) else 'Failed ', end='')
PY
chmod +x "$SB/sbatch" "$SB/kubectl"
HD="$T/h q'\"\$(touch pwned1)\"\`touch pwned2\`\\x27 é"
mkdir -p "$HD"; HS="$HD/a'\$(touch pwned3)'\\x27\`touch pwned5\`.scn"
pwned() { [ -n "$(find "$T" -name 'pwned*')" ]; }
cp "$SC" "$HS"
sb() { STANDIN_STATE="$1" PATH="$SB:$PATH" "${@:2}"; }
mkdir -p "$T/ss" "$T/ks" "$T/kdata"
$H sweep "$HS" --grid "$G" "${OPTS[@]}" --emit slurm --tasks 4 --out "$HD/s" > "$T/hs.out" 2>&1; rc=$?
check "--emit slurm with quotes, \$( ), backticks, \\x27 and UTF-8 in the scenario and --out" '[ $rc -eq 0 ] && [ -s "$HD/s/sweep.sbatch" ] || { cat "$T/hs.out"; false; }'
check "... says what it assumes of --out's filesystem" 'grep -q "^--out: it is on .*filesystem" "$T/hs.out" && grep -q "^# Assumed: " "$HD/s/sweep.sbatch"'
sb "$T/ss" sh "$HD/s/submit.sh" > "$T/hss.out" 2>&1; rc=$?
check "submit.sh ran by a stand-in sbatch: the merged result is byte-identical to one process" '[ $rc -eq 0 ] && cmp -s "$T/j1/sweep.csv" "$HD/s/result/sweep.csv" || { cat "$T/hss.out" "$T/ss/log" | tail; false; }'
check "... and ran no command hidden in a name" '! pwned'
$H sweep "$HS" --grid "$G" "${OPTS[@]}" --emit k8s --tasks 4 --out "$HD/k" > "$T/hk.out" 2>&1; rc=$?
check "--emit k8s with the same names" '[ $rc -eq 0 ] && python3 "$T/jobcheck.py" "$HD/k" 4 > /dev/null'
cp -r "$HD/k/bundle" "$T/kdata/bundle"
STANDIN_DATA="$T/kdata" STANDIN_HASIM="$H" HAKARMA_POLL_S=0.1 sb "$T/ks" sh "$HD/k/submit-k8s.sh" > "$T/hks.out" 2>&1; rc=$?
check "submit-k8s.sh by a stand-in kubectl, the bundle copied as is: byte-identical to one process" '[ $rc -eq 0 ] && cmp -s "$T/j1/sweep.csv" "$T/kdata/result/sweep.csv" || { tail "$T/hks.out"; false; }'
check "... and ran no command hidden in a name" '! pwned'
rm -rf "$T/kdata/shards" "$T/kdata/result"
STANDIN_FAIL=hakarma-sweep STANDIN_DATA="$T/kdata" STANDIN_HASIM="$H" HAKARMA_POLL_S=0.1 STANDIN_STATE="$T/ks" PATH="$SB:$PATH" timeout 60 sh "$HD/k/submit-k8s.sh" > "$T/hkf.out" 2>&1; rc=$?
check "a Job that fails ends submit-k8s.sh with 1, said (no wait forever)" '[ $rc -eq 1 ] && grep -q "job hakarma-sweep failed" "$T/hkf.out"'
for bad in "--out=$T/s"$'\n'" touch pwned4 #" "--partition=a"$'\n'"b" '--partition=a$(touch x)' "--image=img"$'\n'"x"; do
  engine=slurm; [ "${bad%%=*}" = --image ] && engine=k8s
  $H sweep "$SC" --grid "$G" "${OPTS[@]}" --emit $engine --out "$T/bad" "$bad" > "$T/bad.out" 2>&1; rc=$?
  check "refused with the byte named: ${bad//$'\n'/\\n}" 'refused $rc && grep -q "0x\(0a\|24\)" "$T/bad.out" && [ ! -e "$T/bad/sweep.sbatch" ] && [ ! -e "$T/bad/sweep-job.yaml" ] && ! pwned'
done
IMG="reg.example/it's \$(JOB_COMPLETION_INDEX) é:1.0"
$H sweep "$SC" --grid "$G" "${OPTS[@]}" --emit k8s --out "$T/img" --image "$IMG" --quiet
check "--image with a quote, \$( ) and UTF-8: the manifests' image is exactly it" 'python3 -c "import sys, yaml; sys.exit(yaml.safe_load(open(sys.argv[1]))[\"spec\"][\"template\"][\"spec\"][\"containers\"][0][\"image\"] != sys.argv[2])" "$T/img/sweep-job.yaml" "$IMG"'

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
# the array ran the bundle's frozen copy of the scenario: the reports name it, and are otherwise
# the same bytes
for f in sweep.csv report.txt index.html; do
  check "Slurm's $f byte-identical to one process (the scenario's path aside)" 'sed "s|$T/em/bundle/scenario.scn|$SC|g" "$T/em/result/$f" | cmp -s "$T/j1/$f" -'
done
echo "slurm: the 4-task array and its merge took $((t1 - t0)) s of wall time"
echo "cli_batch: $pass passed, $fail failed"
[ $fail -eq 0 ]
