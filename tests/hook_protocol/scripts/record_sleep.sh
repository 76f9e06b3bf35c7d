#!/bin/sh
# record_sleep.sh FILE SECONDS [TAG]: record start and end times (ns) around a sleep, print TAG.
date +%s%N > "$1.start"
sleep "$2"
date +%s%N > "$1.end"
printf '%s' "${3:-}"
