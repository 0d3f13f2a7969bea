#!/usr/bin/python3
"""Mean ± standard error per (dataset, ε, method) from a results.csv.

Usage: sem-table.py RESULTS.csv [--datasets a,b] [--metrics m1,m2]
Prints a Markdown table: one row per cell, "mean ± se (reps)" per metric
(the standard error is sd/√reps; a single run prints its value alone).
"""
import argparse

import numpy as np
import pandas as pd

METRICS = "tvd_1way,tvd_2way,tvd_3way,zero_mass_err_mean,zero_mass_err_max,gbt_acc,lr_acc,cpu_s"
ORDER = ["holdout", "dppub", "dppub-paper", "dppub-adaptive", "dppub-add-remove", "dppub-rows3", "mst", "mst-replace",
         "aim-sampled-replace", "aim-less-capped-replace"]


def cell(v, metric):
    v = v.dropna()
    if v.empty:
        return ""
    f = "{:.1f}" if metric.endswith("_s") else "{:.4f}" if metric.startswith(("tvd", "zero")) else "{:.3f}"
    if len(v) < 2:
        return f.format(v.mean())
    return f.format(v.mean()) + " ± " + f.format(v.std(ddof=1) / np.sqrt(len(v)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--datasets", default="")
    p.add_argument("--metrics", default=METRICS)
    a = p.parse_args()
    df = pd.read_csv(a.results)
    if a.datasets:
        df = df[df.dataset.isin(a.datasets.split(","))]
    metrics = [m for m in a.metrics.split(",") if m in set(df.metric)]
    print("| data | ε | method | reps | " + " | ".join(metrics) + " |")
    print("|---" * (4 + len(metrics)) + "|")
    for (name, eps), d in df.groupby(["dataset", "epsilon"], sort=False):
        methods = sorted(set(d.method), key=lambda m: (ORDER.index(m) if m in ORDER else len(ORDER), m))
        for m in methods:
            dm = d[d.method == m]
            if "timed_out" in set(dm.metric):
                print(f"| {name} | {eps:g} | {m} | {dm.rep.nunique()} | timed out |" + " |" * (len(metrics) - 1))
                continue
            reps = dm.rep.nunique()
            cells = [cell(dm[dm.metric == k].value, k) for k in metrics]
            print(f"| {name} | {eps:g} | {m} | {reps} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
