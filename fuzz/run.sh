#!/usr/bin/env bash
# fuzz/run.sh BUILD_DIR SECONDS — run every harness for SECONDS on a copy of its seed corpus;
# any crash, leak or sanitizer report fails (and leaves the reproducer in fuzz/crashes/).
set -u
B=$1; SECS=${2:-30}; D=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/crashes"
fail=0; pass=0
for h in conf agent dist qlog csv proto_mirror proto_master frame status sqlp; do
  work=$(mktemp -d); cp -r "$D/corpus/$h/." "$work/" 2>/dev/null
  if "$B/fuzz_$h" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$D/crashes/$h-" "$work" > "$work.log" 2>&1; then
    pass=$((pass+1)); echo "fuzz_$h: ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | awk '{print $2}') runs)"
  else
    fail=$((fail+1)); echo "fuzz_$h: FAILED"; tail -30 "$work.log"
  fi
  rm -rf "$work" "$work.log"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
