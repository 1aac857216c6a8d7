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
cases=0; runs=0; broken=0
KINDS="failing slow idle starved locked failing_share flood takeover herding overload saturated oscillation fault_outside_run port_exhaustion"
# score NAME SCN OUT: the run in OUT against SCN's truth (bash alone: thousands of runs)
score() {
  local name=$1 scn=$2 out=$3 scored="" truth=() line k s kind subj rest
  declare -A want=() got=()
  while IFS= read -r line; do
    case $line in
      "# scored: "*) scored=" ${line#\# scored: } " ;;
      "# truth: none") ;;
      "# truth: "*) truth+=("${line#\# truth: }"); want[${line#\# truth: }]=1 ;;
    esac
  done < "$scn"
  # what it found: kind and subject (mirror, else table); details are quoted and come last
  { read -r _; while IFS=, read -r kind _ table _ subj rest; do
      [ -n "$subj" ] || subj=$table; subj=${subj//\"/}; got["$kind $subj"]=${rest:0:160}; got["$kind *"]=1
    done; } < "$out/findings.csv"
  for line in "${truth[@]}"; do
    k=${line%% *}
    if [ -n "${got[$line]:-}" ]; then tp[$k]=$(( ${tp[$k]:-0} + 1 ))
    else fn[$k]=$(( ${fn[$k]:-0} + 1 )); echo "MISS: $name: no $line finding"; fi
  done
  for k in $KINDS; do
    [ "$scored" = " all " ] || [[ "$scored" == *" $k "* ]] || continue
    [ -n "${want[$k *]:-}" ] || [[ " ${!want[*]} " == *" $k "* ]] || near[$k]=$(( ${near[$k]:-0} + 1 ))
  done
  for line in "${!got[@]}"; do
    k=${line%% *}; [ "${line#* }" = "*" ] && continue
    [ "$scored" = " all " ] || [[ "$scored" == *" $k "* ]] || continue
    [ -n "${want[$line]:-}" ] || [ -n "${want[$k *]:-}" ] && continue
    fpos[$k]=$(( ${fpos[$k]:-0} + 1 ))
    echo "INVENTED: $name: $line: ${got[$line]}"
  done
}
# A scenario runs at seeds 1..N of its `# seeds: N` line (4 unless it says; the matrix's healthy
# cases say 20); HK_CORPUS_SEEDS caps N (the sanitizer build looks for memory errors, not
# statistics, and runs 2).
M="$T/matrix"; bash "$(dirname "$0")/corpus_matrix.sh" "$M"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
for scn in "$C"/*.scn "$M"/*.scn "$C"/*.init "$C"/*.replay "$C"/*.live; do
  name=$(basename "$scn"); name=${name%.*}; cases=$((cases+1))
  read -r -a args <<< "$(sed -n 's/^# args: //p' "$scn")"
  seeds=1
  if [[ "$scn" == *.init ]]; then  # a model from `hasim init` (paths from the repository's top)
    read -r -a iargs <<< "$(sed -n 's/^# init: //p' "$scn")"
    if ! (cd "$ROOT" && "$B/hasim" init "${iargs[@]}" --out "$T/$name.model.scn") > "$T/$name.init.log" 2>&1; then
      echo "FAIL: $name: hasim init failed"; sed 's/^/  /' "$T/$name.init.log"; broken=$((broken+1)); continue
    fi
  fi
  if [[ "$scn" == *.scn || "$scn" == *.init ]]; then
    seeds=$(sed -n 's/^# seeds: //p' "$scn"); seeds=${seeds:-4}
    [ -n "${HK_CORPUS_SEEDS:-}" ] && [ "$seeds" -gt "$HK_CORPUS_SEEDS" ] && seeds=$HK_CORPUS_SEEDS
  fi
  for ((seed = 1; seed <= seeds; seed++)); do
    run="$name"; [ "$seeds" -gt 1 ] && run="$name@$seed"
    out="$T/$name.$seed"; runs=$((runs+1))
    if [[ "$scn" == *.replay ]]; then replay_case "$scn" "$out" > "$out.log" 2>&1; rc=$?
    elif [[ "$scn" == *.live ]]; then  # a scenario run live: hareal's master over hareal mirrors
      timeout 120 "$B/hareal" live "$scn" --out "$out" --quiet > "$out.log" 2>&1; rc=$?
    else
      run_scn=$scn; [[ "$scn" == *.init ]] && run_scn="$T/$name.model.scn"
      "$B/hasim" "$run_scn" --out "$out" --quiet --seed "$seed" "${args[@]}" > "$out.log" 2>&1; rc=$?
    fi
    if [ $rc -ne 0 ] || [ ! -s "$out/findings.csv" ]; then
      echo "FAIL: $run: exited $rc"; sed 's/^/  /' "$out.log"; broken=$((broken+1)); continue
    fi
    score "$run" "$scn" "$out"
    rm -rf "$out" "$out.log" "$out.csv" "$out.conf"
  done
done
printf '%-18s %8s %8s %12s %16s\n' kind cases recall "near misses" "false positives"
bad=$broken
for k in $(printf '%s\n' "${!tp[@]}" "${!fn[@]}" "${!fpos[@]}" "${!near[@]}" | sort -u); do
  t=${tp[$k]:-0}; f=${fn[$k]:-0}; p=${fpos[$k]:-0}
  r=$([ $((t+f)) -gt 0 ] && echo "$((100*t/(t+f)))%" || echo "-")
  printf '%-18s %8d %8s %12d %16d\n' "$k" $((t+f)) "$r" "${near[$k]:-0}" "$p"
  bad=$((bad+f+p))
done
echo "corpus: $cases cases, $runs runs"
if [ $bad -eq 0 ]; then echo "$runs passed, 0 failed"; else echo "$((runs-bad > 0 ? runs-bad : 0)) passed, $bad failed"; exit 1; fi
