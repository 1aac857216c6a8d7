#!/bin/sh
# man.sh PROGRAM_BINARY NAME "SUB ..." "what it is" — NAME.1 on stdout, assembled from the
# program's own option tables (each command's --hakarma-man section): the man page never
# restates a synopsis by hand. An empty SUB ("-") is the program's command itself.
set -eu
bin=$1; name=$2; subs=$3; what=$4
ver=$("$bin" --version | sed 's/.* //')
printf '.TH %s 1 "" "hakarma %s" "hakarma manual"\n' "$(echo "$name" | tr a-z A-Z)" "$ver"
printf '.SH NAME\n%s \\- %s\n' "$name" "$what"
printf '.SH DESCRIPTION\nThe commands of \\fB%s\\fR, each with its options, as \\fB%s ... \\-\\-help\\fR prints them.\n' "$name" "$name"
printf '.SH COMMANDS\n'
for s in $subs; do
  if [ "$s" = - ]; then "$bin" --hakarma-man; else "$bin" "$s" --hakarma-man; fi
done
printf '.SH EXIT STATUS\n0 done; 1 a run-time failure; 2 a bad command line or output folder; 3 bad input (file:line:column); 4 a finding of a \\-\\-fail\\-on kind was raised (the files complete); 128+N stopped by signal N.\n'
printf '.SH SEE ALSO\nThe README (the map and the operators'"'"' questions) and docs/ (the reference) of the source tree.\n'
