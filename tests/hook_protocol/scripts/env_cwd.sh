#!/bin/sh
# env_cwd.sh: print HOOK_VAR, whether PATH was inherited, and the working directory.
echo "var=${HOOK_VAR:-unset}"
if [ -n "$PATH" ]; then echo "path=inherited"; fi
pwd
