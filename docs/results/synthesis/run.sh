#!/usr/bin/env bash
# Synthesis benchmark: dppub synthesize vs private-pgm's AIM and MST on the
# same splits and metrics. Not part of CI. See README.md for the protocol.
#
# Usage: bash docs/results/synthesis/run.sh [bench.py options]
#   e.g. --datasets adult,nltcs --epsilons 0.3,1,4 --reps 1
#        --methods holdout,dppub,mst,aim-capped,aim-less-capped
#        --force dppub          (rerun dppub's rows, keep the peers' cached runs)
# Environment:
#   PRIVATE_PGM  checkout of ryan112358/private-pgm at 514dea3 (default: cloned into $WORK)
#   AUTODP       checkout of yuxiangw/autodp at 06489ea (default: cloned into $WORK)
#   WORK         cache of exported data, splits and runs (default /tmp/synthbench)
#   DPPUB_BIN    a dppub binary to use (default: built from the committed HEAD,
#                not from uncommitted edits in the work tree)
#   DATA         ../shared/data (default); passed to dppub as DPPUB_DATA
# Needs Debian's python3-sklearn python3-pandas python3-scipy
# python3-networkx python3-matplotlib python3-attr, and Go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
WORK=${WORK:-/tmp/synthbench}
PGM_COMMIT=514dea3
AUTODP_COMMIT=06489ea
PY=/usr/bin/python3
mkdir -p "$WORK"

if [ -z "${PRIVATE_PGM:-}" ]; then
  PRIVATE_PGM=$WORK/private-pgm
  if [ ! -d "$PRIVATE_PGM" ]; then
    git clone -q https://github.com/ryan112358/private-pgm "$PRIVATE_PGM"
    git -C "$PRIVATE_PGM" checkout -q "$PGM_COMMIT"
  fi
fi
if [ -z "${AUTODP:-}" ]; then
  AUTODP=$WORK/autodp
  if [ ! -d "$AUTODP" ]; then
    git clone -q https://github.com/yuxiangw/autodp "$AUTODP"
    git -C "$AUTODP" checkout -q "$AUTODP_COMMIT"
  fi
fi

commit=$(git -C "$root" rev-parse --short=12 HEAD)
if [ -z "${DPPUB_BIN:-}" ]; then
  src=$WORK/dppub-src-$commit
  if [ ! -d "$src" ]; then
    tmp=$(mktemp -d "$WORK/src.XXXXXX")
    git -C "$root" archive HEAD | tar -x -C "$tmp"
    mv -T "$tmp" "$src" 2>/dev/null || rm -rf "$tmp" # another run got there first
  fi
  DPPUB_BIN=$WORK/dppub-$commit
  if [ ! -x "$DPPUB_BIN" ]; then
    (cd "$src" && go build -o "$DPPUB_BIN.$$" ./cmd/dppub) && mv -f "$DPPUB_BIN.$$" "$DPPUB_BIN"
  fi
else
  commit="$commit (binary $DPPUB_BIN, may include uncommitted changes)"
fi

export DPPUB_DATA=${DATA:-$root/../shared/data}
for d in adult nltcs shuttle wdbc big5 musk2; do
  [ -f "$WORK/data/$d.csv" ] || (cd "$root" && go run docs/results/synthesis/export.go -dataset "$d" -out "$WORK/data") ||
    echo "skipping export of $d" >&2
done
# Generated tables (tables.py: fixed seeds, no download; digits is the copy
# python3-sklearn installs).
for d in zeroinfl wide digits; do
  [ -f "$WORK/data/$d.csv" ] || "$PY" "$here/tables.py" --out "$WORK/data" --tables "$d" ||
    echo "skipping generation of $d" >&2
done

exec "$PY" "$here/bench.py" --data "$WORK/data" --work "$WORK" --out "$here" \
  --dppub "$DPPUB_BIN" --dppub-commit "$commit" --pgm "$PRIVATE_PGM" --autodp "$AUTODP" "$@"
