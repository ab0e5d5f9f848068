#!/bin/sh
# Starts one Procfile kind in place of this shell (exec: the pid the supervisor sees is the process's
# own): an actor kind from the compiled binary (scripts/build-actors.ts) when no source file is newer, else from source.
kind="$1"
[ -n "$kind" ] || { echo "usage: sh scripts/run-kind.sh <kind>" >&2; exit 2; }
shift
cd "$(dirname "$0")/.." || exit 1
bin=.nms/bin/nms
if [ "$kind" != api ] && [ -x "$bin" ]; then
  newer=$(find . \( -name node_modules -o -name .nms -o -name .git -o -name test \) -prune -o \
    \( -name '*.ts' -o -name '*.lua' -o -name package.json \) -newer "$bin" -print -quit)
  if [ -z "$newer" ]; then
    exec "$bin" --only "$kind" "$@"
  fi
  echo "nms: $newer is newer than $bin: starting $kind from source (npm run build:actors builds it again)" >&2
fi
exec node_modules/.bin/bun scripts/start.ts --only "$kind" "$@"
