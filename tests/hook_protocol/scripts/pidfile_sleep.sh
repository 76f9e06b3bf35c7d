#!/bin/sh
# pidfile_sleep.sh PIDFILE: write our pid and a grandchild's, then sleep.
sleep 60 &
echo "$$ $!" > "$1.tmp"
mv "$1.tmp" "$1"
wait
