#!/bin/bash
# Builds a 3-party linked PDP-MVDS consortium in $DIR/c: parties of columns of
# the first N rows of $SCALE/adult-100000.csv (docs/results/scale/run.sh makes
# it), each lacking a different tenth, rows shuffled, an ID column "person".
set -e
N=${N:-55556}
D=${DIR:-/tmp/dppub-link}/c
B=${DPPUB:-dppub}
rm -rf $D
$B consortium demo --dir $D --owners 3 --rows 200 --method pdp-mvds --split-seed 1 >/dev/null
python3 - "$D" "$N" <<'PY'
import csv, json, os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
rows = []
with open(os.environ.get('SCALE', '/tmp/dppub-scale') + '/adult-100000.csv') as f:
    r = csv.reader(f)
    header = [h.strip() for h in next(r)]
    for i, row in enumerate(r):
        if i >= n: break
        rows.append([v.strip() for v in row])
rnd = random.Random(17)
perm = list(range(n)); rnd.shuffle(perm)
tenth = n // 10
c = json.load(open(d + '/consortium.json'))
for m in c['members']:
    m['address'] = '127.0.0.1:0'
c['methods'] = {'pdp-mvds': {'rho': 0.5, 'link': True, 'delta': 1e-10}}
json.dump(c, open(d + '/consortium.json', 'w'), indent=1)
full = json.load(open(d + '/adult.schema.json'))
full['id'] = 'person'
json.dump(full, open(d + '/adult.linked.schema.json', 'w'))
for k in range(3):
    sp = d + '/adult.party-%d.schema.json' % (k + 1)
    s = json.load(open(sp)); s['id'] = 'person'; json.dump(s, open(sp, 'w'))
    cols = [header.index(a['name']) for a in s['attributes']]
    missing = set(perm[k*tenth:(k+1)*tenth])
    keep = [i for i in range(n) if i not in missing]
    rnd.shuffle(keep)
    with open(d + '/data/party-%d.csv' % (k + 1), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['person'] + [header[j] for j in cols])
        for i in keep:
            w.writerow(['p%07d' % i] + [rows[i][j] for j in cols])
    print('party', k + 1, len(keep), 'IDs')
PY
$B consortium init --config $D/consortium.json >/dev/null
