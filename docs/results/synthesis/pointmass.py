#!/usr/bin/python3
"""Point masses on every path (issue 37): runs one dppub build on every
path that synthesises rows (one owner, owners of rows, parties of
columns) and scores zero_mass_err_mean / zero_mass_err_max, the signed
error per zero-inflated column and the 1- and 2-way TVD with bench.py's
own code, without the classifiers (seconds a run instead of a minute).
Seeds are bench.py's formula, 1000·rep + round(100·ε). Results go to
RUNS/TAG/DATA/PATH/EPS/REP/m.json (--runs, default /tmp/pointmass); --table TAG_BEFORE,TAG_AFTER
prints the before/after table of wide-and-zero-inflated.md.

  pointmass.py --bin /tmp/dppub-x --tag after --paths one,rows3-adaptive,parties2 --eps 0.3,1,4
"""
import argparse, glob, importlib.util, itertools, json, os, subprocess, sys, time
import numpy as np, pandas as pd
spec = importlib.util.spec_from_file_location("bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench.py"))
bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
PGM = "/tmp/synthbench/private-pgm"

def cmd_for(binary, table, path, eps, seed, out, workdir):
    base = ["--schema", table.schema_json, "--seed", str(seed), "--out", out, "--force",
            "--report", out + ".privacy.json"]
    rho = bench.cdp_rho(PGM, eps, 1e-5)
    E = ["--epsilon", repr(eps), "--delta", "1e-5"]
    if path.startswith("one"):
        c = [binary, "synthesize", "--input", table.train_csv] + base + E
        if path == "one-paper": c += ["--method", "paper"]
        if path == "one-adaptive": c += ["--method", "adaptive"]
        return c
    if path.startswith("rows"):
        k, *m = path[4:].split("-")
        c = [binary, "publish", "synthesize-rows", "--owners", k, "--input", table.train_csv] + base + E
        if m: c += ["--method", m[0]]
        return c
    if path == "parties2":
        return [binary, "synthesize", "--parties", "2", "--input", table.train_csv] + base + ["--rho", repr(rho), "--delta", "1e-5"]
    if path == "pdpmvds2":
        df = pd.read_csv(table.train_csv, dtype=str, keep_default_na=False)
        cols = list(df.columns); h = (len(cols) + 1) // 2
        parts = []
        for i, cs in enumerate([cols[:h], cols[h:]]):
            p = os.path.join(workdir, f"{table.name}-part{i}.csv")
            if not os.path.exists(p): df[cs].to_csv(p, index=False)
            parts += ["--input", p]
        return [binary, "publish", "pdp-mvds"] + parts + base + ["--budgets", repr(rho), "--delta", "1e-5"]
    raise SystemExit(path)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin"); ap.add_argument("--tag"); ap.add_argument("--data", default="zeroinfl")
    ap.add_argument("--paths"); ap.add_argument("--eps", default="0.3,1,4"); ap.add_argument("--reps", default="1,2,3")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--runs", default="/tmp/pointmass")
    ap.add_argument("--table", help="TAG_BEFORE,TAG_AFTER: print the before/after table and exit")
    a = ap.parse_args()
    if a.table:
        return print_table(a.runs, a.data, *a.table.split(","))
    table = bench.Table("/tmp/synthbench/data", a.data, "/tmp/synthbench")
    work = os.path.join(a.runs, a.tag, a.data); os.makedirs(work, exist_ok=True)
    pairs = list(itertools.combinations(range(len(table.attrs)), 2))
    for path in a.paths.split(","):
        for eps in map(float, a.eps.split(",")):
            for rep in map(int, a.reps.split(",")):
                d = os.path.join(work, path, f"{eps:g}", str(rep)); os.makedirs(d, exist_ok=True)
                res = os.path.join(d, "m.json")
                if os.path.exists(res) and not a.force: continue
                seed = 1000 * rep + int(round(100 * eps))
                out = os.path.join(d, "synth.csv")
                c = cmd_for(a.bin, table, path, eps, seed, out, work)
                t0 = time.time()
                r = subprocess.run(c, capture_output=True, text=True)
                if r.returncode:
                    print("FAIL", path, eps, rep, r.stderr[-2000:]); continue
                s = bench.read_synth(table, out)
                m = bench.numeric_metrics(table, s)
                m = {k: m[k] for k in m if k.startswith("zero") or k == "mode_mass_err"}
                m["tvd_1way"] = bench.avg_tvd(table.train_codes, table.encode(s), table.sizes, [(j,) for j in range(len(table.attrs))])
                m["tvd_2way"] = bench.avg_tvd(table.train_codes, table.encode(s), table.sizes, pairs)
                m["wall"] = time.time() - t0
                # signed zero share error per column
                sg = {}
                for at in table.schema:
                    if at["kind"] == "numeric":
                        rr = table.train[at["name"]].to_numpy(float)
                        if np.mean(rr == 0) >= bench.ZERO_INFLATED:
                            sg[at["name"]] = float(np.mean(s[at["name"]].to_numpy(float) == 0) - np.mean(rr == 0))
                m["signed"] = sg
                json.dump(m, open(res, "w"))
                print(f"{path} eps={eps:g} rep={rep} max={m.get('zero_mass_err_max',0)*100:.2f} mean={m.get('zero_mass_err_mean',0)*100:.2f} tvd2={m['tvd_2way']:.4f} {m['wall']:.1f}s", flush=True)
NAMES = {"one": "one (auto)", "one-paper": "one, paper", "one-adaptive": "one, adaptive", "rows3": "rows 3 (auto)",
         "rows3-paper": "rows 3, paper", "rows3-adaptive": "rows 3, adaptive", "rows10": "rows 10 (auto)",
         "rows10-paper": "rows 10, paper", "rows10-adaptive": "rows 10, adaptive", "parties2": "parties 2", "pdpmvds2": "pdp-mvds 2"}


def load(runs, tag, data):
    rows = {}
    for f in glob.glob(os.path.join(runs, tag, data, "*", "*", "*", "m.json")):
        path, eps, rep = f.split("/")[-4:-1]
        rows.setdefault((path, float(eps)), {})[int(rep)] = json.load(open(f))
    return rows


def print_table(runs, data, before, after):
    def ms(v, k=100, d=2):
        v = np.array(v) * k
        return f"{v.mean():.{d}f} ± {v.std(ddof=1) / np.sqrt(len(v)):.{d}f}"
    def worst(m):
        cell = f"{ms(m)} ({', '.join(f'{x * 100:.1f}' for x in m)})"
        return f"**{cell}**" if np.mean(m) > 0.02 else cell
    b, a = load(runs, before, data), load(runs, after, data)
    print("| ε | path | worst column, before (runs) | worst column, after (runs) | mean, before | mean, after | 2-way TVD before | 2-way TVD after |")
    print("|---|---|---|---|---|---|---|---|")
    for eps in (0.3, 1, 4):
        for p in NAMES:
            if (p, eps) not in b or (p, eps) not in a:
                continue
            rb = [b[(p, eps)][r] for r in sorted(b[(p, eps)])]
            ra = [a[(p, eps)][r] for r in sorted(a[(p, eps)])]
            mb = [x.get("zero_mass_err_max", 0) for x in rb]
            ma = [x.get("zero_mass_err_max", 0) for x in ra]
            same = len(rb) == len(ra) and all(x["tvd_2way"] == y["tvd_2way"] and x.get("zero_mass_err_max") == y.get("zero_mass_err_max")
                                              for x, y in zip(rb, ra))
            print(f"| {eps:g} | {NAMES[p]} | {worst(mb)} | {'identical' if same else worst(ma)} | "
                  f"{ms([x.get('zero_mass_err_mean', 0) for x in rb])} | {'' if same else ms([x.get('zero_mass_err_mean', 0) for x in ra])} | "
                  f"{ms([x['tvd_2way'] for x in rb], 1, 4)} | {'' if same else ms([x['tvd_2way'] for x in ra], 1, 4)} |")


main()
