#!/bin/sh
# ignore_term.sh PIDFILE: ignore SIGTERM (inherited by the sleep too) and outlive the timeout.
trap '' TERM
sleep 60 &
echo "$!" > "$1"
wait
