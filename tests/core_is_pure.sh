#!/bin/sh
# The core (models/) must not do I/O or read a clock: no filesystem, network
# or time headers, no file or clock calls. Fails listing each offending line.
cd "$1/models" || exit 2
bad=$(grep -nE '#include <(sys/|netinet|arpa/|fcntl|unistd|dirent|time\.h|uv\.h)|\b(fopen|fwrite|fprintf|printf|puts|open|socket|clock_gettime|gettimeofday|time)\s*\(' *.c *.h | grep -vE 'snprintf|vsnprintf')
if [ -n "$bad" ]; then
  echo "models/ does I/O or reads a clock:"; echo "$bad"; exit 1
fi
echo "models/ is pure: 1 passed, 0 failed"
