#!/usr/bin/env bash
# Regenerates the figures of docs/results with the repetitions they were
# made with. Each command writes a long-form CSV and its PNG plots beside it.
# Needs ../shared/data. Usage: bash docs/results/regenerate.sh [NAME...]
# where NAME is ppca, pdp-mvds, mp-crdp, dppca-svm or lda-dp (default: all).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/dppub
go build -o "$bin" ./cmd/dppub
out=docs/results
want=${*:-ppca pdp-mvds mp-crdp dppca-svm lda-dp}
for name in $want; do
  case $name in
  ppca)
    for f in 2 3 4; do "$bin" eval ppca-dp-mh --figure $f --reps 3 --out $out/ppca-dp-mh/fig$f.csv --plot $out/ppca-dp-mh/fig$f.png; done ;;
  pdp-mvds)
    for f in 1 2; do "$bin" eval pdp-mvds --figure $f --reps 3 --out $out/pdp-mvds-engine/fig$f.csv --plot $out/pdp-mvds-engine/fig$f.png; done ;;
  mp-crdp)
    "$bin" eval mp-crdp --figure 3,4,5 --reps 5 --out $out/mp-crdp/fig345.csv
    "$bin" eval mp-crdp --figure 6 --reps 5 --out $out/mp-crdp/fig6-table1.csv ;;
  dppca-svm)
    for f in 1 2 3; do "$bin" eval dppca-svm --figure $f --reps 3 --out $out/dppca-svm/fig$f.csv --plot $out/dppca-svm/fig$f.png; done ;;
  lda-dp)
    for f in 1 2 3; do "$bin" eval lda-dp --figure $f --reps 50 --baseline-reps 10 --out $out/lda-dp/fig$f.csv --plot $out/lda-dp/fig$f.png; done ;;
  *) echo "unknown figure set $name" >&2; exit 2 ;;
  esac
done
