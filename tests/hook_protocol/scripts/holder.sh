#!/bin/sh
# holder.sh PIDFILE MODE: leave a background grandchild holding stdout and stderr open,
# then either exit at once (MODE=exit) or sleep far past any test timeout (MODE=sleep).
sleep 60 &
echo "$!@$(stat -Lc %i /proc/self/ns/pid)" > "$1"  # PID@INODE: tests/nspids.py
echo "started"
if [ "$2" = sleep ]; then
    sleep 60
fi
exit 0
