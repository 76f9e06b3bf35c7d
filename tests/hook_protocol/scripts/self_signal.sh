#!/bin/sh
# self_signal.sh SIGNAL: print something, then kill ourselves with SIGNAL.
echo "before"
kill "-$1" $$
sleep 5
