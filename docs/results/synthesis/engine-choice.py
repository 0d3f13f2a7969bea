#!/usr/bin/env python3
"""Evidence for synthesize --method auto's precise-budget rule (engine-choice.md).

Runs `dppub synthesize --method paper|adaptive --seed S` on built-in datasets at
each budget, scores every output with `dppub compare` (2-way and 3-way TVD,
classifier accuracy when the table has a label) and times it with
/usr/bin/time -f %U (CPU seconds), appending one row per run to a CSV; then
prints the mean ± standard error table. Not part of CI. Usage (from the
module root, after `go build -o /tmp/dppub ./cmd/dppub` and
`go run docs/results/synthesis/export.go -dataset D -out DIR` for each D):

  DPPUB_DATA=../shared/data python3 docs/results/synthesis/engine-choice.py \\
      --dppub /tmp/dppub --data DIR --work /tmp/engine-choice \\
      --datasets adult,nltcs,shuttle --budgets rho:0.05,rho:0.2,rho:0.5,rho:1,rho:2,epsilon:0.3,epsilon:1,epsilon:4 \\
      --seeds 1,2,3 --csv docs/results/synthesis/engine-choice.csv
  # a variant: --extra "--bins 32" --tag -bins32 ; only the table: --report-only
"""
import argparse, collections, csv, itertools, json, math, os, subprocess


def run(a):
    out = open(a.csv, "a", newline="")
    w = csv.writer(out)
    for d in a.datasets.split(","):
        label = open(os.path.join(a.data, d + ".label")).read().strip()
        for kind, val in (b.split(":") for b in a.budgets.split(",")):
            for method in ("paper", "adaptive"):
                for seed in a.seeds.split(","):
                    syn = os.path.join(a.work, f"{d}{a.tag}-{kind}{val}-{method}-{seed}.csv")
                    cmd = [a.dppub, "synthesize", "--dataset", d, f"--{kind}", val, "--method", method,
                           "--seed", seed, "--out", syn, "--force", "--json"] + a.extra.split()
                    if kind == "epsilon":
                        cmd += ["--delta", "1e-5"]
                    t = subprocess.run(["/usr/bin/time", "-f", "TIME %U %e"] + cmd, capture_output=True, text=True)
                    if t.returncode != 0:
                        print("failed:", " ".join(cmd), t.stderr[-400:], flush=True)
                        continue
                    user, wall = t.stderr.strip().splitlines()[-1].split()[1:3]
                    j = json.loads(t.stdout)
                    ccmd = [a.dppub, "compare", os.path.join(a.data, d + ".csv"), syn,
                            "--schema", os.path.join(a.data, d + ".schema.json"), "--out", syn + ".html", "--force", "--json"]
                    if label:
                        ccmd += ["--label", label]
                    c = json.loads(subprocess.run(ccmd, capture_output=True, text=True, check=True).stdout)
                    three = {m["order"]: m["mean_tvd"] for m in c["marginals"]}.get(3, "")
                    acc = (c.get("classifier") or {}).get("train_synthetic_accuracy", "")
                    row = [d + a.tag, kind, val, j["privacy_report"]["claimed"]["rho"], method, seed,
                           j["quality"]["mean_one_way_tvd"], j["quality"]["mean_two_way_tvd"], three, acc, user, wall]
                    w.writerow(row)
                    out.flush()
                    print(*row, flush=True)


def sizes(schema, bins):
    return [bins if x["kind"] == "numeric" else 2 if x["kind"] == "binary" else len(x["categories"])
            for x in schema["attributes"]]


def pair_noise(sz, n, rho):
    """method/synthesize.PairNoise."""
    pairs = list(itertools.combinations(sz, 2))
    return sum(x * y for x, y in pairs) / (n * math.sqrt(2 * math.pi * len(pairs) * rho))


def mean_se(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None
    m = sum(xs) / len(xs)
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else float("nan")
    return m, se


def report(a):
    cells = collections.defaultdict(list)
    for d, kind, val, rho, method, seed, one, two, three, acc, user, wall in csv.reader(open(a.csv)):
        cells[(d, kind, val, method)].append((float(rho), float(two), float(three), float(acc) if acc else None, float(user)))
    print("| table | budget | ρ | τ | runs | 2-way TVD paper | 2-way TVD adaptive | ratio | 3-way TVD paper | 3-way TVD adaptive | ratio "
          "| accuracy paper | accuracy adaptive | CPU-s paper | CPU-s adaptive | auto |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    f = lambda ms, k=4: "—" if ms[0] is None else f"{ms[0]:.{k}f} ± {ms[1]:.{k}f}"
    for d in dict.fromkeys(k[0] for k in cells):
        base = d.split("-")[0]
        schema = json.load(open(os.path.join(a.data, base + ".schema.json")))
        n = sum(1 for _ in open(os.path.join(a.data, base + ".csv"))) - 1
        sz = sizes(schema, 32 if "bins32" in d else 16)
        budgets = {(k[1], k[2]) for k in cells if k[0] == d}
        for kind, val in sorted(budgets, key=lambda b: cells[(d, b[0], b[1], "paper")][0][0]):
            p, q = cells[(d, kind, val, "paper")], cells[(d, kind, val, "adaptive")]
            rho = p[0][0]
            tau = pair_noise(sz, n, rho)
            auto = "paper" if max(sz) > a.values and tau <= a.tau else "adaptive"
            col = lambda rs, i: mean_se([r[i] for r in rs])
            p2, q2, p3, q3 = col(p, 1), col(q, 1), col(p, 2), col(q, 2)
            budget = f"ρ = {val}" if kind == "rho" else f"ε = {val}, δ = 1e-5"
            print(f"| {d} | {budget} | {rho:.4g} | {tau:.4f} | {len(p)}/{len(q)} | {f(p2)} | {f(q2)} | {q2[0] / p2[0]:.3f} "
                  f"| {f(p3)} | {f(q3)} | {q3[0] / p3[0]:.3f} | {f(col(p, 3), 3)} | {f(col(q, 3), 3)} "
                  f"| {col(p, 4)[0]:.2f} | {col(q, 4)[0]:.2f} | {auto} |")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--dppub", default="/tmp/dppub")
    p.add_argument("--data", required=True, help="export.go's output directory")
    p.add_argument("--work", default="/tmp/engine-choice")
    p.add_argument("--datasets", default="adult,nltcs,shuttle")
    p.add_argument("--budgets", default="rho:0.05,rho:0.2,rho:0.5,rho:1,rho:2,epsilon:0.3,epsilon:1,epsilon:4")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--extra", default="", help="further synthesize flags, e.g. '--bins 32' (give --tag too)")
    p.add_argument("--tag", default="", help="suffix of the table's name in the CSV for --extra runs (-bins32 is read as 32 bins)")
    p.add_argument("--csv", default="docs/results/synthesis/engine-choice.csv")
    p.add_argument("--values", type=int, default=32, help="AutoPreciseValues")
    p.add_argument("--tau", type=float, default=0.013, help="AutoPrecisePairNoise")
    p.add_argument("--report-only", action="store_true")
    a = p.parse_args()
    if not a.report_only:
        os.makedirs(a.work, exist_ok=True)
        run(a)
    report(a)
