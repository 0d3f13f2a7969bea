#!/usr/bin/python3
"""Score one dppub synthesize variant the way bench.py scores its runs.

    variant.py TABLE EPS TAG REPS -- [synthesize flags...]

Runs `BIN synthesize` (BIN from the environment, default /tmp/dppub; COMMAND
from the environment replaces `synthesize`, e.g. "publish synthesize-rows
--owners 3" to split the rows among owners of rows) on
bench.py's training split of TABLE with bench.py's seeds (1000·rep +
100·ε for each rep in the comma-separated REPS), (ε, δ) = (EPS, 1e-5) and
the given extra flags, scores each output with bench.py's `score` (the
same metrics as results.csv), and appends one JSON line per run to
$OUT (default variants.jsonl): table, eps, tag, rep, CPU-s of the
synthesize process, 1/2/3-way TVD, GBT accuracy. Used for
wide-vs-mst.md; the cache (--data, --work) is bench.py's.
"""
import json
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

DATA = os.environ.get("DATA", "/tmp/synthbench/data")
WORK = os.environ.get("WORK", "/tmp/synthbench")


def main():
    name, eps, tag, reps = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    extra = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    binary = os.environ.get("BIN", "/tmp/dppub")
    out_rows = os.environ.get("OUT", "variants.jsonl")
    t = bench.Table(DATA, name, WORK)
    for rep in (int(r) for r in reps.split(",")):
        seed = 1000 * rep + int(round(100 * eps))
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"variant-{name}-{tag}-{rep}.csv")
        cmd = [binary] + os.environ.get("COMMAND", "synthesize").split() + ["--input", t.train_csv, "--schema", t.schema_json, "--seed", str(seed),
               "--out", out, "--report", out + ".json", "--force", "--quiet",
               "--epsilon", repr(eps), "--delta", "1e-05"] + extra
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = subprocess.run(cmd, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode:
            raise SystemExit(r.stderr[-2000:])
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        m = bench.score(t, bench.read_synth(t, out))
        row = dict(table=name, eps=eps, tag=tag, rep=rep, cpu=cpu,
                   **{k: m.get(k) for k in ("tvd_1way", "tvd_2way", "tvd_3way", "gbt_acc")})
        with open(out_rows, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{name} {tag} rep={rep} 2way={m['tvd_2way']:.4f} 3way={m['tvd_3way']:.4f} "
              f"gbt={m.get('gbt_acc', float('nan')):.3f} cpu={cpu:.1f}", flush=True)


if __name__ == "__main__":
    main()
