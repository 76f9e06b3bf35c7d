#!/bin/sh
# mark_exit.sh FILE: write "done" to FILE and exit 0, printing nothing.
echo done > "$1"
