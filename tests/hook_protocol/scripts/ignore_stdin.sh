#!/bin/sh
# ignore_stdin.sh: never read stdin; write more than a pipe buffer to stdout, then exit.
head -c 262144 /dev/zero | tr '\0' 'x'
