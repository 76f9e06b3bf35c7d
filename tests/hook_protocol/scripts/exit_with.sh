#!/bin/sh
# exit_with.sh CODE: say so on stderr and exit with CODE.
echo "exiting with $1" >&2
exit "$1"
