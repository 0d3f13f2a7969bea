#!/usr/bin/env bash
# Scaling against a plain read+split loop on the same Adult-like files
# (Adult's records resampled, with a header row), in the same run: PPCA-DP-MH
# owner statistics (ppca), `dppub statistics` (statistics, and with --fine
# statistics-fine), `dppub synthesize` end to end (synthesize), and
# `dppub publish ppca-dp-mh` with three owners of the file (ppca-publish from
# three --input, ppca-publish-stats from three statistics files, which the
# statistics task writes).
# Not part of CI. Usage: docs/results/scale/run.sh [sizes...]   (default 1e5 1e6)
# TASKS picks the tasks (default "split ppca synthesize"; also statistics,
# statistics-fine, ppca-publish, ppca-publish-stats).
# Writes /tmp/dppub-scale/adult-N.csv and prints CSV rows to stdout; the
# 1-minute load average before each task is the last column.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
src=${ADULT:-$root/../shared/data/adult/adult.data}
out=/tmp/dppub-scale
mkdir -p "$out"
go build -o "$out/scale" scale.go
(cd "$root" && go build -o "$out/dppub" ./cmd/dppub)
"$out/scale" schema "$out/adult.schema.json"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100000 1000000)
read -r -a tasks <<< "${TASKS:-split ppca synthesize}"
echo "rows,bytes,task,wall_s,user_s,sys_s,max_rss_kb,load1"
for n in "${sizes[@]}"; do
  f=$out/adult-$n.csv
  [ -f "$f" ] || "$out/scale" gen "$n" "$src" "$f"
  bytes=$(stat -c %s "$f")
  cat "$f" > /dev/null  # warm the page cache for every task alike
  for task in "${tasks[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    case $task in
      synthesize)
        # Secure randomness, as a real release; the synthetic CSV (as
        # many rows as the input) is deleted afterwards.
        cmd=("$out/dppub" synthesize --input "$f" --schema "$out/adult.schema.json" --epsilon 1
             --out "$out/synth-$n.csv" --force --quiet) ;;
      statistics|statistics-fine)
        # The owner's exact statistics file (kept for ppca-publish-stats).
        fine=(); [ "$task" = statistics-fine ] && fine=(--fine)
        cmd=("$out/dppub" statistics --input "$f" --schema "$out/adult.schema.json"
             --out "$out/$task-$n.stats" --force --quiet "${fine[@]}") ;;
      ppca-publish)
        cmd=("$out/dppub" publish ppca-dp-mh --input "$f" --input "$f" --input "$f"
             --schema "$out/adult.schema.json" --epsilon 1 --out "$out/synth-$n.csv" --force --quiet) ;;
      ppca-publish-stats)
        s=$out/statistics-$n.stats
        cmd=("$out/dppub" publish ppca-dp-mh --statistics "$s" --statistics "$s" --statistics "$s"
             --schema "$out/adult.schema.json" --epsilon 1 --out "$out/synth-$n.csv" --force --quiet) ;;
      *) cmd=("$out/scale" "$task" "$f") ;;
    esac
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "${cmd[@]}" > /dev/null
    read -r secs user sys rss < "$out/time"
    rm -f "$out/synth-$n.csv" "$out/synth-$n.csv.privacy.json"
    echo "$n,$bytes,$task,$secs,$user,$sys,$rss,$load"
  done
done
