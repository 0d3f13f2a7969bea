#!/usr/bin/python3
"""2-way TVD of one dppub command over bench.py's split and seeds (issue 37,
owners-gap.md): runs BINARY ARGS... with --input/--schema/--seed/--out/
--epsilon/--delta added, reps 1..REPS at seed 1000*rep + 100*eps as
bench.py does, scores the 2-way TVD with bench.py's metric, and prints
mean ± standard error. Results are cached in CACHE (a JSON file) under
LABEL, so a cell is computed once.

  owners-gap.py BINARY TABLE EPS LABEL -- ARGS...
  e.g. owners-gap.py /tmp/dppub adult 1 r3-exact -- publish synthesize-rows --owners 3 --noise exact

Environment: DATA (default /tmp/synthbench/data), WORK (/tmp/synthbench,
bench.py's cache of splits), CACHE (/tmp/owners-gap.json), REPS (3)."""
import json
import os
import re
import subprocess
import sys
import itertools

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import bench  # noqa: E402

binary, name, eps, label = sys.argv[1:5]
args = sys.argv[6:]
eps = float(eps)
reps = int(os.environ.get("REPS", "3"))
cache = os.environ.get("CACHE", "/tmp/owners-gap.json")
table = bench.Table(os.environ.get("DATA", "/tmp/synthbench/data"), name, os.environ.get("WORK", "/tmp/synthbench"))
pairs = list(itertools.combinations(range(len(table.attrs)), 2))


def load():
    return json.load(open(cache)) if os.path.exists(cache) else {}


vals, methods = [], set()
for rep in range(1, reps + 1):
    seed = 1000 * rep + int(round(100 * eps))
    key = f"{os.path.basename(binary)}|{name}|{eps:g}|{label}|{seed}"
    db = load()
    if key not in db:
        out = f"/tmp/owners-gap-{os.getpid()}.csv"
        cmd = [binary] + args + ["--input", table.train_csv, "--schema", table.schema_json, "--seed", str(seed),
                                 "--out", out, "--report", out + ".json", "--force", "--epsilon", repr(eps),
                                 "--delta", "1e-05", "--quiet"]
        subprocess.run(cmd, check=True, capture_output=True)
        report = json.load(open(out + ".json"))
        text = json.dumps(report, ensure_ascii=False)
        chosen = re.search(r"the method \((\w+)\) was chosen", text)
        method = chosen.group(1) if chosen else report.get("parameters", {}).get("method", "")
        if method in ("", "auto"):
            method = "adaptive" if "adaptive" in report.get("method", "") else "paper"
        synth = bench.read_synth(table, out)
        tvd = bench.avg_tvd(table.train_codes, table.encode(synth), table.sizes, pairs)
        db = load()
        db[key] = {"tvd2": tvd, "method": method}
        json.dump(db, open(cache, "w"))
    vals.append(db[key]["tvd2"])
    methods.add(db[key]["method"])
v = np.array(vals)
se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0
print(f"{name}\t{eps:g}\t{label}\t{v.mean():.4f} ± {se:.4f}\t{' '.join('%.4f' % x for x in v)}\t{','.join(sorted(methods))}")
