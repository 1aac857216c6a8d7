#!/usr/bin/env bash
# mutate.sh [JOBS [FILES]] — a mutation check of the core (models/, and real/'s pure toxics), for
# anyone to run: about 50 s a mutant on 2 cores.
# mutate.sh --sample N — what CI runs: N mutants of the list, chosen by the commit (HEAD's hash
# picks where in the list they start, so each commit tries others), exit 1 on any survivor or a
# mutant that no longer applies. Each mutant of tests/mutants.txt changes one line of a models/ source in a
# copy of the tree; the copy is rebuilt (-O2, no LTO) and the suite run without the tests that
# need the network or take long (cli_hareal, cli_interop, cli_robust, cli_hostile): the first
# failing test kills the mutant (the rest are not run: a killed mutant costs seconds, not minutes). Prints each mutant's fate, the survivors, and the score; exits 1 when
# under 95% are killed, or when a mutant no longer applies (its text must occur exactly once).
set -u
SAMPLE=0
if [ "${1:-}" = --sample ]; then SAMPLE=${2:?--sample N}; shift 2; fi
J=${1:-2}
ONLY=${2:-}   # an extended regex: only the mutants of the files it matches (e.g. 'hk_calib|hk_proto')
S=$(cd "$(dirname "$0")/.." && pwd)
TOTAL=$(grep -c '^[a-z]' "$S/tests/mutants.txt")
PICK=""
if [ "$SAMPLE" -gt 0 ]; then  # which entries (1-based among the mutant lines): SAMPLE apart
  h=$(git -C "$S" rev-parse HEAD 2>/dev/null || echo 0); start=$(( 0x${h:0:7} % TOTAL ))
  for i in $(seq 0 $((SAMPLE - 1))); do PICK="$PICK $(( (start + i * (TOTAL / SAMPLE)) % TOTAL + 1 ))"; done
  echo "mutate: the sample of commit ${h:0:7}: mutants$PICK of $TOTAL"
fi
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
cp -r "$S/CMakeLists.txt" "$S/README.md" "$S/docs" "$S/models" "$S/io" "$S/sim" "$S/real" "$S/cmd" "$S/fuzz" "$S/tests" "$S/bench" "$S/plots" \
      "$S/scenarios" "$W/"
cmake -S "$W" -B "$W/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHK_LTO=OFF > /dev/null || exit 1
cmake --build "$W/build" -j"$J" > /dev/null 2>&1 || { echo "mutate: the unmutated tree does not build"; exit 1; }
# the findings corpus runs each case at one seed here (its 253 cases still score every finder
# mutant; the 2,649 runs at every seed are the suite's)
export HK_CORPUS_SEEDS=1
# the tests that need a real searchd, Slurm or the network, or that test no core code
EXCL='cli_hareal|cli_interop|cli_robust|cli_hostile|cli_livesd|cli_incident|cli_batch|cli_proxy|cli_metrics|cli_outdir|cli_safety|cli_watch|cli_pconn'
if [ "$SAMPLE" -eq 0 ]; then  # CI has just run the whole suite on this tree
  ctest --test-dir "$W/build" -j"$J" -E "$EXCL" > /dev/null 2>&1 || { echo "mutate: the unmutated suite fails"; exit 1; }
fi
n=0; killed=0; bad=0; survivors=(); idx=0
while IFS=$'\t' read -r file text repl what; do
  case "$file" in ''|'#'*) continue;; esac
  idx=$((idx+1))
  [ -n "$PICK" ] && ! grep -qw "$idx" <<< "$PICK" && continue
  [ -n "$ONLY" ] && ! grep -Eq "$ONLY" <<< "$file" && continue
  n=$((n+1))
  cp "$W/$file" "$W/$file.orig"
  count=$(A="$text" perl -0ne 'my $c = () = /\Q$ENV{A}\E/g; print $c' "$W/$file")
  if [ "$count" != 1 ]; then
    echo "NOT APPLICABLE ($count matches): $file: $what"; bad=$((bad+1)); rm -f "$W/$file.orig"; continue
  fi
  A="$text" B="$repl" perl -0pi -e 's/\Q$ENV{A}\E/$ENV{B}/' "$W/$file"
  if ! cmake --build "$W/build" -j"$J" > /dev/null 2>&1; then
    fate="killed (does not build)"; killed=$((killed+1))
  elif ! ctest --test-dir "$W/build" -j"$J" -E "$EXCL" --timeout 300 --stop-on-failure > "$W/ctest.out" 2>&1; then
    if grep -q '\*\*\*Timeout' "$W/ctest.out"; then  # a test too slow kills nothing: say so
      fate="TIMED OUT (not a kill): $(grep -B0 'Timeout' "$W/ctest.out" | grep -o '[a-z_]* \.' | head -1)"
      bad=$((bad+1))
    else
      fate="killed by $(grep -o '[0-9]* - [a-z_]*' "$W/ctest.out" | head -3 | sed 's/[0-9]* - //' | tr '\n' ' ')"
      killed=$((killed+1))
    fi
  else
    fate="SURVIVED"; survivors+=("$file: $what")
  fi
  printf '%-28s %-55s %s\n' "$file" "$what" "$fate"
  mv "$W/$file.orig" "$W/$file"; touch "$W/$file"  # newer than the mutant's objects: rebuilt
done < "$W/tests/mutants.txt"  # the copy: editing the list during a run changes nothing
cmake --build "$W/build" -j"$J" > /dev/null 2>&1
echo "mutate: $killed of $n mutants killed ($(awk -v k=$killed -v n=$n 'BEGIN {printf "%.0f", n ? 100 * k / n : 0}')%)"
for s in "${survivors[@]}"; do echo "  survivor: $s"; done
if [ "$SAMPLE" -gt 0 ]; then [ "$bad" -eq 0 ] && [ "$killed" -eq "$n" ] && [ "$n" -gt 0 ]; exit; fi
[ "$bad" -eq 0 ] && awk -v k=$killed -v n=$n 'BEGIN {exit !(n && k >= 0.95 * n)}'
