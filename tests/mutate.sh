#!/usr/bin/env bash
# mutate.sh [JOBS [FILES]] — a mutation check of the core (models/), for anyone to run (not part of CI:
# about 30 s a mutant on 2 cores). Each mutant of tests/mutants.txt changes one line of a models/ source in a
# copy of the tree; the copy is rebuilt (-O2, no LTO) and the suite run without the tests that
# need the network or take long (cli_hareal, cli_interop, cli_robust, cli_hostile): a failing
# suite kills the mutant. Prints each mutant's fate, the survivors, and the score; exits 1 when
# under 95% are killed, or when a mutant no longer applies (its text must occur exactly once).
set -u
J=${1:-2}
ONLY=${2:-}   # an extended regex: only the mutants of the files it matches (e.g. 'hk_calib|hk_proto')
S=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
cp -r "$S/CMakeLists.txt" "$S/models" "$S/io" "$S/sim" "$S/real" "$S/tests" "$S/bench" "$S/plots" \
      "$S/scenarios" "$W/"
cmake -S "$W" -B "$W/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHK_LTO=OFF > /dev/null || exit 1
cmake --build "$W/build" -j"$J" > /dev/null 2>&1 || { echo "mutate: the unmutated tree does not build"; exit 1; }
EXCL='cli_hareal|cli_interop|cli_robust|cli_hostile'
ctest --test-dir "$W/build" -j"$J" -E "$EXCL" > /dev/null 2>&1 || { echo "mutate: the unmutated suite fails"; exit 1; }
n=0; killed=0; bad=0; survivors=()
while IFS=$'\t' read -r file text repl what; do
  case "$file" in ''|'#'*) continue;; esac
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
  elif ! ctest --test-dir "$W/build" -j"$J" -E "$EXCL" --timeout 120 > "$W/ctest.out" 2>&1; then
    fate="killed by $(grep -o '[0-9]* - [a-z_]*' "$W/ctest.out" | head -3 | sed 's/[0-9]* - //' | tr '\n' ' ')"
    killed=$((killed+1))
  else
    fate="SURVIVED"; survivors+=("$file: $what")
  fi
  printf '%-28s %-55s %s\n' "$file" "$what" "$fate"
  mv "$W/$file.orig" "$W/$file"; touch "$W/$file"  # newer than the mutant's objects: rebuilt
done < "$W/tests/mutants.txt"  # the copy: editing the list during a run changes nothing
cmake --build "$W/build" -j"$J" > /dev/null 2>&1
echo "mutate: $killed of $n mutants killed ($(awk -v k=$killed -v n=$n 'BEGIN {printf "%.0f", n ? 100 * k / n : 0}')%)"
for s in "${survivors[@]}"; do echo "  survivor: $s"; done
[ "$bad" -eq 0 ] && awk -v k=$killed -v n=$n 'BEGIN {exit !(n && k >= 0.95 * n)}'
