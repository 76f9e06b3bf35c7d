#!/bin/sh
# ignore_term.sh PIDFILE: ignore SIGTERM (inherited by the sleep too) and outlive the timeout.
trap '' TERM
sleep 60 &
echo "$!@$(stat -Lc %i /proc/self/ns/pid)" > "$1"  # PID@INODE: tests/nspids.py
wait
