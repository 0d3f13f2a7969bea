#!/usr/bin/python3
"""TVD of the wide table's planted 3-way dependencies, per cached run.

The four parity triples (b<k>_c0, b<k>_c7, b<k>_parity), k = 0..3, whose
pairs are independent by construction (tables.py), and the label triple
(b0_c0, b1_c0, target): the mean TVD of those 3-way marginals, synthetic
against training rows, with bench.py's encoding and decoding. A method
that measures only pairs leaves them near the independent model's TVD.
Usage: planted.py [--work /tmp/synthbench] [--data DIR] [--epsilon 1]
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", default="/tmp/synthbench")
    p.add_argument("--data", default="/tmp/synthbench/data")
    p.add_argument("--epsilon", type=float, default=1)
    a = p.parse_args()
    t = bench.Table(a.data, "wide", a.work)
    idx = {name: i for i, name in enumerate(t.attrs)}
    parity = [(idx[f"b{b}_c0"], idx[f"b{b}_c7"], idx[f"b{b}_parity"]) for b in range(4)]
    label = [(idx["b0_c0"], idx["b1_c0"], idx["target"])]
    print("method,rep,parity_tvd_3way,label_tvd_3way")
    for path in sorted(glob.glob(os.path.join(a.work, "runs", "wide", f"{a.epsilon:g}", "*", "*", "metrics.json"))):
        method, rep = path.split(os.sep)[-3:-1]
        if not json.load(open(path))["metrics"]:
            continue  # timed out
        out = os.path.join(os.path.dirname(path), "synth.csv")
        if method == "holdout":
            synth = t.test
        elif method.startswith("dppub"):
            synth = bench.read_synth(t, out)
        else:
            synth = bench.peer_synth(t, out, 1000 * int(rep) + int(round(100 * a.epsilon)))
        codes = t.encode(synth)
        print(f"{method},{rep},{bench.avg_tvd(t.train_codes, codes, t.sizes, parity):.4f},"
              f"{bench.avg_tvd(t.train_codes, codes, t.sizes, label):.4f}")


if __name__ == "__main__":
    main()
