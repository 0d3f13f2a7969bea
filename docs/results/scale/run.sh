#!/usr/bin/env bash
# Scaling of PPCA-DP-MH owner statistics against a plain read+split loop on
# the same Adult-like files (Adult's records resampled), in the same run.
# Not part of CI. Usage: docs/results/scale/run.sh [sizes...]   (default 1e5 1e6)
# Writes /tmp/dppub-scale/adult-N.csv and prints CSV rows to stdout.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
src=${ADULT:-$root/../shared/data/adult/adult.data}
out=/tmp/dppub-scale
mkdir -p "$out"
go build -o "$out/scale" scale.go
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100000 1000000)
echo "rows,bytes,task,wall_s,user_s,sys_s,max_rss_kb"
for n in "${sizes[@]}"; do
  f=$out/adult-$n.csv
  [ -f "$f" ] || "$out/scale" gen "$n" "$src" "$f"
  bytes=$(stat -c %s "$f")
  cat "$f" > /dev/null  # warm the page cache for both tasks alike
  for task in split ppca; do
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$out/scale" "$task" "$f" > /dev/null
    read -r secs user sys rss < "$out/time"
    echo "$n,$bytes,$task,$secs,$user,$sys,$rss"
  done
done
