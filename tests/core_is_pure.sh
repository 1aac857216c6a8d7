#!/bin/sh
# The core (models/) must not do I/O or read a clock: no filesystem, network
# or time headers, no file, print or clock calls (string literals and
# comments are ignored). Fails listing each offending line.
cd "$1/models" || exit 2
bad=$(for f in *.c *.h; do
  sed -e 's/"[^"]*"//g' -e 's#/\*.*\*/##g' -e 's#^ \*.*##' "$f" | grep -nE \
    '#include <(sys/|netinet|arpa/|fcntl|unistd|dirent|time\.h|uv\.h|stdio_ext)|(^|[^a-z_])(fopen|fwrite|fread|fprintf|printf|puts|fputs|open|socket|connect|clock_gettime|gettimeofday|time|clock|getenv)[[:space:]]*\(' \
    | sed "s#^#$f:#"
done)
if [ -n "$bad" ]; then
  echo "models/ does I/O or reads a clock:"; echo "$bad"; exit 1
fi
echo "core_is_pure: 1 passed, 0 failed"
