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
[ -x "$B/hasim" ] || { echo "FAIL: $B/hasim is missing"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
declare -A tp fn fpos near
cases=0; broken=0
for scn in "$C"/*.scn; do
  name=$(basename "$scn" .scn); cases=$((cases+1))
  read -r -a args <<< "$(sed -n 's/^# args: //p' "$scn")"
  "$B/hasim" "$scn" --out "$T/$name" --quiet "${args[@]}" > "$T/$name.log" 2>&1; rc=$?
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
