#!/bin/sh
# pidfile_sleep.sh PIDFILE: write our pid and a grandchild's, then sleep.
sleep 60 &
ns=$(stat -Lc %i /proc/self/ns/pid)  # PID@INODE: tests/nspids.py
echo "$$@$ns $!@$ns" > "$1.tmp"
mv "$1.tmp" "$1"
wait
