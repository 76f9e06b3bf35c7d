#!/bin/sh
# count_run.sh FILE TAG: append TAG to FILE (one line per run) and print TAG.
echo "$2" >> "$1"
printf '%s' "$2"
