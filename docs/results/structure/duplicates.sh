#!/usr/bin/env bash
# Counts the pairs of duplicated code at a commit (issue 36's measure), two ways:
#   as-listed   the `duplicates` tool on the tree as committed;
#   imports-out the same tree with every grouped `import ( … )` block written as
#               single `import "x"` lines, which the tool passes over (its README:
#               "import lines are passed over"); the lines inside a grouped block
#               are not recognised as import lines, so two files that import the
#               same packages count as a duplicate pair there.
# Usage: docs/results/structure/duplicates.sh [REV ...]   (default HEAD)
# Needs the `duplicates` command and python3. Writes only under a temporary folder.
set -euo pipefail
repo=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- HEAD
printf '%-12s %9s %11s\n' commit as-listed imports-out
for rev in "$@"; do
  short=$(git -C "$repo" rev-parse --short "$rev")
  rm -rf "$tmp/tree"; mkdir -p "$tmp/tree"
  git -C "$repo" archive "$rev" | tar -x -C "$tmp/tree"
  listed=$(cd "$tmp/tree" && duplicates --seconds 300 | head -1 | awk '{print $1}')
  python3 - "$tmp/tree" <<'PY'
import pathlib, re, sys
block = re.compile(r'^import \(\n(.*?)^\)', re.S | re.M)
def single_lines(m):
    specs = [l.strip() for l in m.group(1).split('\n')]
    return '\n'.join('import ' + s for s in specs if s and not s.startswith('//'))
for path in pathlib.Path(sys.argv[1]).rglob('*.go'):
    text = path.read_text(encoding='utf-8', errors='replace')
    path.write_text(block.sub(single_lines, text))
PY
  out=$(cd "$tmp/tree" && duplicates --seconds 300 | head -1 | awk '{print $1}')
  printf '%-12s %9s %11s\n' "$short" "$listed" "$out"
done
