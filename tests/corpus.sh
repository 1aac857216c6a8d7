#!/usr/bin/env bash
# The findings corpus: every case under tests/corpus/ is a small scenario whose truth is known
# by construction, said in its header — `# truth: KIND SUBJECT` (SUBJECT: the mirror, or the
# table for an idle one; `# truth: none` for a control) and `# scored: KINDS` (the kinds whose
# truth the case knows; `all` = every kind), and `# args: ...` for hasim's command line. Each case
# runs once; a finding of a scored kind
# that the truth does not list is a false positive, a truth line no finding matches is a miss.
# A truth's SUBJECT `*` is any subject (herding: which mirror the masters pile onto first is
# chance). Prints per kind the cases that must raise it, recall, the near misses (scored cases
# that must not) and false positives; exit 1 unless recall is 100% and no finding is
# invented. Usage: tests/corpus.sh BUILD_DIR [CORPUS_DIR]
set -u
B=$1; C=${2:-$(dirname "$0")/corpus}
for bin in hasim hareal; do [ -x "$B/$bin" ] || { echo "FAIL: $B/$bin is missing"; exit 1; }; done
T=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
BASE=$(( 10000 + ($$ % 100) * 20 ))  # 10000-12000: the replay cases' mirrors, apart from other tests

# A replay case (NAME.replay): `# mirror: NAME [hareal mirror options]` lines (a mirror named
# with `--absent` is never started: its connects are refused), `# strategy: S`, `# queries: N`
# at 200/s; runs `hareal replay` over real mirrors on loopback. Its findings name mirrors by
# address: they are mapped back to the case's names. A live case (NAME.live) is a scenario that
# `hareal live` runs on loopback, in real time.
replay_case() {
  local f=$1 out=$2 i=0 agents="" map="" mname opts
  PIDS=()
  while read -r mname opts; do
    local port=$((BASE + i)); i=$((i+1))
    agents="$agents|127.0.0.1:$port"; map="$map s/127\.0\.0\.1:$port/$mname/g;"
    if [[ "$opts" != *--absent* ]]; then
      # shellcheck disable=SC2086
      "$B/hareal" mirror --listen 127.0.0.1:$port --quiet $opts & PIDS+=($!)
      for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
      kill -0 "${PIDS[-1]}" 2>/dev/null || { echo "mirror $mname could not listen on $port"; return 1; }
    fi
  done < <(sed -n 's/^# mirror: //p' "$f")
  printf 'searchd { ha_period_karma = 2  ha_ping_interval = 500  agent_connect_timeout = 300  agent_query_timeout = 400 }\ntable d {\n type = distributed\n agent = %s:s\n ha_strategy = %s\n}\n' \
    "${agents#|}" "$(sed -n 's/^# strategy: //p' "$f")" > "$out.conf"
  local n; n=$(sed -n 's/^# queries: //p' "$f")
  { echo "t_s,table,query"; for q in $(seq 0 $((n-1))); do printf '%d.%03d,d,q%d\n' $((q/200)) $(( (q%200)*5 )) $q; done; } > "$out.csv"
  timeout 120 "$B/hareal" replay --config "$out.conf" --trace "$out.csv" --out "$out" --quiet; local rc=$?
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; PIDS=()
  [ -s "$out/findings.csv" ] && sed -i "$map" "$out/findings.csv"
  return $rc
}
declare -A tp fn fpos near
cases=0; broken=0
for scn in "$C"/*.scn "$C"/*.replay "$C"/*.live; do
  name=$(basename "$scn"); name=${name%.*}; cases=$((cases+1))
  read -r -a args <<< "$(sed -n 's/^# args: //p' "$scn")"
  if [[ "$scn" == *.replay ]]; then replay_case "$scn" "$T/$name" > "$T/$name.log" 2>&1; rc=$?
  elif [[ "$scn" == *.live ]]; then  # a scenario run live: hareal's master over hareal mirrors
    timeout 120 "$B/hareal" live "$scn" --out "$T/$name" --quiet > "$T/$name.log" 2>&1; rc=$?
  else "$B/hasim" "$scn" --out "$T/$name" --quiet "${args[@]}" > "$T/$name.log" 2>&1; rc=$?; fi
  if [ $rc -ne 0 ] || [ ! -s "$T/$name/findings.csv" ]; then
    echo "FAIL: $name: hasim exited $rc"; sed 's/^/  /' "$T/$name.log"; broken=$((broken+1)); continue
  fi
  scored=$(sed -n 's/^# scored: //p' "$scn")
  truth=$(sed -n 's/^# truth: //p' "$scn" | grep -v '^none$')
  # what it found: kind and subject (mirror, else table); details are quoted and come last
  found=$(awk -F, 'NR>1 { s = $5 != "" ? $5 : $3; gsub(/"/, "", s); print $1, s }' "$T/$name/findings.csv" | sort -u)
  is_scored() { [ "$scored" = all ] || [[ " $scored " == *" $1 "* ]]; }
  matches() { [ "$2" = "*" ] && grep -q "^$1 " <<< "$3" || grep -qxF "$1 $2" <<< "$3"; }
  while read -r k s; do
    [ -n "$k" ] || continue
    if matches "$k" "$s" "$found"; then tp[$k]=$(( ${tp[$k]:-0} + 1 ))
    else fn[$k]=$(( ${fn[$k]:-0} + 1 )); echo "MISS: $name: no $k finding on $s"; fi
  done <<< "$truth"
  for k in $(printf '%s\n' failing slow idle starved locked failing_share flood takeover herding \
             overload oscillation fault_outside_run); do
    is_scored "$k" && ! grep -q "^$k " <<< "$truth" && near[$k]=$(( ${near[$k]:-0} + 1 ))
  done
  while read -r k s; do
    [ -n "$k" ] || continue
    is_scored "$k" || continue
    grep -qxF "$k $s" <<< "$truth" && continue
    grep -qxF "$k *" <<< "$truth" && continue
    fpos[$k]=$(( ${fpos[$k]:-0} + 1 ))
    echo "INVENTED: $name: $k on $s: $(awk -F, -v k="$k" 'NR>1 && $1==k' "$T/$name/findings.csv" | head -1 | cut -c1-200)"
  done <<< "$found"
done
printf '%-18s %8s %8s %12s %16s\n' kind cases recall "near misses" "false positives"
bad=$broken
for k in $(printf '%s\n' "${!tp[@]}" "${!fn[@]}" "${!fpos[@]}" "${!near[@]}" | sort -u); do
  t=${tp[$k]:-0}; f=${fn[$k]:-0}; p=${fpos[$k]:-0}
  r=$([ $((t+f)) -gt 0 ] && echo "$((100*t/(t+f)))%" || echo "-")
  printf '%-18s %8d %8s %12d %16d\n' "$k" $((t+f)) "$r" "${near[$k]:-0}" "$p"
  bad=$((bad+f+p))
done
echo "corpus: $cases cases"
if [ $bad -eq 0 ]; then echo "$cases passed, 0 failed"; else echo "$((cases-bad > 0 ? cases-bad : 0)) passed, $bad failed"; exit 1; fi
