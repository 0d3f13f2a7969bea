#!/usr/bin/env python3
"""Issue 37's targets from a benchmark work folder (bench.py --work).

For each (dataset, ε) it sets dppub's default beside the better of AIM
and MST at the same guarantee, and the owners-of-rows runs beside the
single-owner default:
- replace-one: dppub (ρ) against aim-*-replace (AIM at ρ/2.2, the same
  guarantee under replace-one, bench.py's REPLACE) and mst-replace (MST
  at 3ρ/8, bench.py's MST_REPLACE);
- add/remove: dppub-add-remove against mst, aim-capped, aim-less-capped
  (private-pgm's own relation, the literature's convention).
Means ± one standard error over the repetitions found; CPU ratio is the
peer's CPU over dppub's. Usage: target.py WORK|RESULTS.csv[.gz] [DATASETS]
> table.md (a bench.py work folder, or the long-form CSV bench.py writes,
e.g. the committed targets.csv.gz)
"""
import csv, glob, gzip, json, math, os, sys, collections

work = sys.argv[1]
only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None
runs = collections.defaultdict(list)
if work.endswith((".csv", ".csv.gz")):
    opener = gzip.open if work.endswith(".gz") else open
    byrep = collections.defaultdict(dict)
    with opener(work, "rt") as f:
        for r in csv.DictReader(f):
            if (only and r["dataset"] not in only) or r["metric"] == "timed_out":
                continue
            byrep[(r["dataset"], float(r["epsilon"]), r["method"], r["rep"])][r["metric"]] = float(r["value"])
    for (name, eps, method, _), m in byrep.items():
        runs[(name, eps, method)].append(m)
else:
    for path in glob.glob(os.path.join(work, "runs", "*", "*", "*", "*", "metrics.json")):
        name, eps, method, rep = path.split(os.sep)[-5:-1]
        if only and name not in only:
            continue
        m = json.load(open(path))["metrics"]
        if m:
            runs[(name, float(eps), method)].append(m)


def stat(key, metric):
    xs = [r[metric] for r in runs.get(key, []) if metric in r and r[metric] == r[metric]]
    if not xs:
        return None
    mu = sum(xs) / len(xs)
    se = math.sqrt(sum((x - mu) ** 2 for x in xs) / (len(xs) - 1) / len(xs)) if len(xs) > 1 else float("nan")
    return mu, se, len(xs)


def fmt(s, d=4):
    if s is None:
        return "—"
    mu, se, n = s
    return f"{mu:.{d}f}" + ("" if se != se else f" ± {se:.{d}f}") + f" ({n})"


def best(name, eps, methods, metric):
    cands = [(stat((name, eps, m), metric), m) for m in methods]
    cands = [(s, m) for s, m in cands if s]
    if not cands:
        return None, None
    return min(cands, key=lambda c: c[0][0]) if metric.startswith("tvd") else max(cands, key=lambda c: c[0][0])


REPLACE_PEERS = ["aim-capped-replace", "aim-less-capped-replace", "aim-sampled-replace", "mst-replace"]
ADDREMOVE_PEERS = ["mst", "aim-capped", "aim-less-capped"]
keys = sorted({(n, e) for n, e, _ in runs})
print("| data | ε | relation | dppub 2-way | best peer 2-way | dppub 3-way | best peer 3-way | dppub GBT | best peer GBT | peer CPU / dppub CPU |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, eps in keys:
    for rel, us, peers in (("replace-one", "dppub", REPLACE_PEERS), ("add/remove", "dppub-add-remove", ADDREMOVE_PEERS)):
        if not runs.get((name, eps, us)):
            continue
        cells = []
        for metric in ("tvd_2way", "tvd_3way", "gbt_acc"):
            s, m = best(name, eps, peers, metric)
            cells += [fmt(stat((name, eps, us), metric), 3 if metric == "gbt_acc" else 4),
                      (fmt(s, 3 if metric == "gbt_acc" else 4) + f" {m}") if s else "—"]
        s2, m2 = best(name, eps, peers, "tvd_2way")
        cpu_us, cpu_them = stat((name, eps, us), "cpu_s"), stat((name, eps, m2), "cpu_s") if m2 else None
        ratio = f"{cpu_them[0] / cpu_us[0]:.0f}× ({m2})" if cpu_us and cpu_them else "—"
        print(f"| {name} | {eps:g} | {rel} | " + " | ".join(cells) + f" | {ratio} |")
print()
print("| data | ε | single owner 2-way | 3 owners 2-way | ratio | 10 owners 2-way | ratio |")
print("|---|---|---|---|---|---|---|")
for name, eps in keys:
    one = stat((name, eps, "dppub"), "tvd_2way")
    if not one:
        continue
    row = [fmt(one)]
    for k in ("dppub-rows3", "dppub-rows10"):
        s = stat((name, eps, k), "tvd_2way")
        row += [fmt(s), f"{s[0] / one[0]:.2f}" if s else "—"]
    print(f"| {name} | {eps:g} | " + " | ".join(row) + " |")
