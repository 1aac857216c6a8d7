#!/bin/sh
# The layering, one way: models/ (the core) <- io/ <- sim/, real/ (engines, never each other)
# <- cmd/ (every front end). A layer includes no header of a layer above it or beside it, and
# no main() and no argv outside cmd/ (engines take structs). The engines (sim/, real/) and the
# core print nothing and return no exit code: they say what they have to say through an hk_say
# (or into a stream their caller hands them) and return errors as hk_err. Fails listing each
# offending line.
cd "$1" || exit 2
fail=0
# layer, then the header names (a regex on the included file) it must not include
rule() {
  bad=$(grep -nE "#include \"($2)" "$1"/*.c "$1"/*.h 2>/dev/null)
  if [ -n "$bad" ]; then echo "$1/ includes a header it must not:"; echo "$bad"; fail=1; fi
}
up_io='sim|sweep|rl_|hasim|hareal|hk_cmd'
rule models "hk_(answer|csv|exec|exit|file|fmt|plot|plotdata|progress|report|rundir|scnload|trace)\\.h|$up_io"
rule io "$up_io"
rule sim 'rl_|hasim|hareal|hk_cmd'
rule real 'sim|sweep|hasim|hareal|hk_cmd'
for d in models io sim real; do
  bad=$(grep -nE '(^|[^a-z_])(main|argv|argc)([^a-z_]|$)' $d/*.c $d/*.h |
        grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*)')
  if [ -n "$bad" ]; then echo "$d/ has a main or an argv (front ends live in cmd/):"; echo "$bad"; fail=1; fi
done
for d in models sim real; do
  bad=$(grep -nE '(^|[^a-z_])(stderr|stdout|printf|puts|HK_EXIT_[A-Z]+|hk_print_err|hk_exit\.h)([^a-z_]|$)' $d/*.c |
        grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/\*|\*)')
  if [ -n "$bad" ]; then echo "$d/ prints or returns an exit code (engines are silent):"; echo "$bad"; fail=1; fi
done
[ $fail -eq 0 ] && echo "layering: 8 passed, 0 failed"
exit $fail
