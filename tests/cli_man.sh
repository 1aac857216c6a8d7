#!/usr/bin/env bash
# The man pages hasim.1 and hareal.1, generated at build time from the option tables: they render
# under man -l without a warning, and every option each command's --help lists (the same table)
# has its entry in its program's page.
set -u
B=$1; S=$2
. "$S/tests/lib.sh"
for p in hasim hareal; do
  [ -x "$B/$p" ] || { echo "FAIL: $B/$p is missing"; exit 1; }
  [ -s "$B/$p.1" ] || { echo "FAIL: $B/$p.1 was not generated"; exit 1; }
done
command -v man > /dev/null || { echo "FAIL: man is missing (.ci/setup installs man-db)"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
total=0
for p in hasim hareal; do
  MANWIDTH=100 man --warnings -l "$B/$p.1" > "$T/$p.txt" 2> "$T/$p.err"; rc=$?
  check "man -l $p.1 renders without a warning" '[ $rc -eq 0 ] && [ ! -s "$T/$p.err" ] && grep -q "^NAME" "$T/$p.txt" || cat "$T/$p.err"'
  sed 's/\\-/-/g' "$B/$p.1" > "$T/$p.roff"
  subs="-"; [ $p = hasim ] && subs="- init sweep merge"; [ $p = hareal ] && subs="- mirror replay live proxy"
  for s in $subs; do
    if [ "$s" = - ]; then "$B/$p" --help > "$T/help"; else "$B/$p" "$s" --help > "$T/help"; fi
    opts=$(sed -n 's/^  \(--\?[a-zA-Z][a-z0-9-]*\).*/\1/p' "$T/help" | grep -v '^-h$')
    missing=""
    for o in $opts; do grep -q "^\.B $o\b" "$T/$p.roff" || missing="$missing $o"; done
    total=$((total + $(echo $opts | wc -w)))
    check "$p${s#-}: each of its $(echo $opts | wc -w) options has its entry in $p.1" '[ -z "$missing" ] || { echo "missing:$missing"; false; }'
  done
done
check "the options were read from --help at all ($total)" '[ "$total" -ge 60 ]'
echo "cli_man: $pass passed, $fail failed"
[ $fail -eq 0 ]
