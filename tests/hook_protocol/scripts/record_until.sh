#!/bin/sh
# record_until.sh FILE COUNT PATTERN [TAG]: record start and end times (ns), and between them
# wait until COUNT files match PATTERN (at most about 15 s), then print TAG. Hooks that must
# overlap, or finish in an order, wait for each other's files instead of sleeping, so a loaded
# machine cannot reorder them. Each time is written whole (to a temporary name, then renamed):
# a file that exists holds its time.
stamp() { date +%s%N > "$1.tmp" && mv "$1.tmp" "$1"; }
file=$1 count=$2 pattern=$3 tag=${4:-}
stamp "$file.start"
tries=0
while :; do
  # shellcheck disable=SC2086 # the pattern is globbed on purpose
  set -- $pattern
  if [ -e "$1" ]; then found=$#; else found=0; fi
  if [ "$found" -ge "$count" ] || [ "$tries" -ge 1500 ]; then break; fi
  tries=$((tries + 1))
  sleep 0.01
done
stamp "$file.end"
printf '%s' "$tag"
