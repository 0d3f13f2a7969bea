#!/usr/bin/python3
"""Generated benchmark tables for the synthesis benchmark (issue 37).

Writes, in the format export.go writes (DIR/<name>.csv with a header,
DIR/<name>.schema.json in dppub's schema format, DIR/<name>.label):

  zeroinfl  10 000 rows, 27 columns (5 categorical, 22 numeric): 16
            real-valued columns exactly 0 in 60-95 % of rows (health
            amounts and word frequencies) with a log-normal positive part,
            tied to a 4-class label and to each other through shared
            latent factors, and integer counts with a point mass at 0.
  wide      8 000 rows, 73 columns (45 categorical, 28 numeric): 8 blocks
            of 9 columns, each a tree of noisy pairwise dependencies, with
            three-way (parity) columns whose pairs carry little signal,
            and a binary label.
  digits    scikit-learn's bundled digits table (1 797 rows, 64 pixel
            columns of 0-16, mostly 0 at the edges, and the digit),
            read from the file python3-sklearn installs: no download.

Every table is drawn from numpy.random.default_rng with a fixed seed, and
every bound in a schema is fixed here, before and independently of the
draw (public bounds: a value outside is clamped, as dppub clamps).
Usage: tables.py --out DIR [--tables zeroinfl,wide,digits]
"""
import argparse
import gzip
import json
import os

import numpy as np
import pandas as pd

SEEDS = {"zeroinfl": 3701, "wide": 3702}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def num(name, lo, hi, integer=False, decimals=0):
    a = {"name": name, "kind": "numeric", "min": lo, "max": hi}
    if integer:
        a["integer"] = True
    elif decimals:
        a["decimals"] = decimals
    return a


def cat(name, cats):
    return {"name": name, "kind": "categorical", "categories": list(cats)}


def zeroinfl(n=10000):
    """Zero-inflated amounts as in claims or word-count data.

    Latent structure: a label `plan` (4 classes), a person-level factor z
    that depends on the plan, and two group factors (health g_h, text g_t)
    that depend on z. Each zero-inflated column j is non-zero with
    probability sigmoid(b_j + 1.2·g + label effect), so the zero
    indicators of a group are correlated with each other and with the
    label (2-way structure on the zero mass itself; dental and physio
    also depend on the plan directly, as cover); its positive part is
    exp(m_j + 0.6·g + 0.25·plan + 0.7·N(0,1)), so the size of a non-zero
    amount also follows the factors. Base rates b_j are set so that the
    zero share runs from about 60 % to 99 %. Two columns are structural:
    `smoking_cessation` is non-zero only for smokers, `maternity` only
    for sex F (a category forces the point mass: 3-way with the amount).
    """
    rng = np.random.default_rng(SEEDS["zeroinfl"])
    plans = ["none", "basic", "plus", "premium"]
    plan = rng.choice(4, n, p=[0.4, 0.3, 0.2, 0.1])
    z = 0.9 * plan - 1.35 + rng.normal(0, 1, n)
    g_h = 0.7 * z + rng.normal(0, 0.7, n)
    g_t = -0.5 * z + rng.normal(0, 0.8, n)
    region = rng.choice(6, n, p=[0.25, 0.2, 0.2, 0.15, 0.1, 0.1])
    sex = rng.choice(2, n)
    smoker = (rng.random(n) < sigmoid(-1.2 + 0.4 * (region == 3) - 0.3 * plan)).astype(int)
    employment = np.clip(np.rint(1.5 + 0.5 * z + rng.normal(0, 0.8, n)), 0, 3).astype(int)
    cols, schema = {}, []
    schema.append(cat("plan", plans))
    cols["plan"] = np.array(plans)[plan]
    schema.append(cat("region", ["north", "south", "east", "west", "centre", "islands"]))
    cols["region"] = np.array(schema[-1]["categories"])[region]
    schema.append(cat("sex", ["F", "M"]))
    cols["sex"] = np.array(["F", "M"])[sex]
    schema.append(cat("smoker", ["no", "yes"]))
    cols["smoker"] = np.array(["no", "yes"])[smoker]
    schema.append(cat("employment", ["none", "part", "full", "self"]))
    cols["employment"] = np.array(schema[-1]["categories"])[employment]
    # Dense columns.
    age = np.clip(np.rint(45 + 12 * z + rng.normal(0, 10, n)), 18, 95)
    schema.append(num("age", 18, 95, integer=True))
    cols["age"] = age
    income = np.round(np.exp(10.3 + 0.35 * z + 0.25 * employment + rng.normal(0, 0.5, n)), 2)
    schema.append(num("income", 0, 250000, decimals=2))
    cols["income"] = income
    bmi = np.round(26 + 2.5 * g_h + rng.normal(0, 3, n), 1)
    schema.append(num("bmi", 12, 55, decimals=1))
    cols["bmi"] = bmi
    schema.append(num("visits", 0, 40, integer=True))
    cols["visits"] = np.minimum(rng.poisson(np.exp(0.8 + 0.6 * g_h)), 40)
    # Health amounts: (name, base b_j, log-scale m_j, bound); zero share
    # from the base rate and the label/factor effects.
    health = [("outpatient", -0.2, 5.5, 5000), ("pharmacy", -0.4, 4.5, 2000), ("dental", -1.0, 5.0, 3000),
              ("inpatient", -2.6, 8.5, 100000), ("physio", -2.0, 5.2, 3000), ("mental_health", -2.4, 5.8, 5000),
              ("emergency", -3.0, 6.5, 20000), ("smoking_cessation", -1.5, 4.2, 1000), ("maternity", -3.2, 8.0, 50000)]
    for name, b, m, hi in health:
        logit = b + 1.2 * g_h + 0.35 * (plan - 1.5)
        if name == "dental":
            logit = logit + 1.5 * (plan >= 2) - 1.0 * (plan == 0)  # covered by plus and premium
        if name == "physio":
            logit = logit + 1.2 * (plan == 3)
        if name == "smoking_cessation":
            logit = np.where(smoker == 1, logit + 1.0, -np.inf)
        if name == "maternity":
            logit = np.where(sex == 0, logit + 1.0, -np.inf)
        pos = rng.random(n) < sigmoid(logit)
        amount = np.exp(m + 0.6 * g_h + 0.25 * plan + rng.normal(0, 0.7, n))
        cols[name] = np.where(pos, np.maximum(np.round(amount, 2), 0.01), 0.0)
        schema.append(num(name, 0, hi, decimals=2))
    # Word frequencies (per cent of a document's words): zero for most
    # rows, a text factor opposite to the health one, one word per plan.
    words = [("w_claim", -0.9, 0.0, 20), ("w_refund", -1.5, -0.3, 20), ("w_urgent", -2.5, 0.2, 20),
             ("w_premium", -2.0, 0.1, 20), ("w_cancel", -2.8, 0.4, 20), ("w_thanks", -1.0, -0.5, 20),
             ("w_invoice", -3.5, 0.3, 20)]
    for k, (name, b, m, hi) in enumerate(words):
        logit = b + 1.1 * g_t
        if name == "w_premium":
            logit = logit + 1.5 * (plan == 3)
        if name == "w_cancel":
            logit = logit + 1.2 * (plan == 0) - 0.8 * (employment == 0)
        pos = rng.random(n) < sigmoid(logit)
        freq = np.exp(m + 0.5 * g_t + rng.normal(0, 0.6, n))
        cols[name] = np.where(pos, np.maximum(np.round(freq, 3), 0.001), 0.0)
        schema.append(num(name, 0, hi, decimals=3))
    # Integer counts with a point mass at 0 (a claim count per amount group).
    schema.append(num("claims", 0, 30, integer=True))
    cols["claims"] = np.minimum(sum((cols[h[0]] > 0).astype(int) for h in health[:5]) *
                                rng.poisson(1.5, n), 30)
    schema.append(num("days_in_hospital", 0, 60, integer=True))
    cols["days_in_hospital"] = np.where(cols["inpatient"] > 0, np.minimum(1 + rng.poisson(np.exp(1 + 0.3 * g_h)), 60), 0)
    return finish(cols, schema), "plan"


def wide(n=8000):
    """Eight blocks of nine columns, each a tree of noisy dependencies.

    In each block the first column is a root (categorical, 3-6 values);
    every later column takes a parent among the earlier ones of its block
    (a fixed random tree) and is a noisy function of it: a categorical
    child copies a random map of the parent's value with probability 0.7
    (uniform otherwise), a numeric child is a linear function of the
    parent's code plus Gaussian noise (real or integer). The last column
    of blocks 0-3 is a parity: (root + c7) mod k with 10 % noise, where
    c7 is uniform and independent of everything, so each of its pairs is
    independent and only its 3-way marginal carries the dependency. Roots
    of neighbouring blocks are linked (block i's root depends on block
    i-1's), so the whole table is one connected model. The label depends
    on a parity of two roots and a threshold of a numeric column: a
    classifier needs the 3-way structure.
    """
    rng = np.random.default_rng(SEEDS["wide"])
    cols, schema, codes, kinds = {}, [], {}, {}

    def add_cat(name, k, code):
        cats = [f"v{i}" for i in range(k)]
        schema.append(cat(name, cats))
        cols[name] = np.array(cats)[code]
        codes[name], kinds[name] = code, k

    def add_num(name, values, lo, hi, integer):
        values = np.clip(values, lo, hi)
        values = np.rint(values) if integer else np.round(values, 2)
        schema.append(num(name, lo, hi, integer=integer, decimals=0 if integer else 2))
        cols[name] = values
        codes[name], kinds[name] = None, 0

    prev_root = None
    for b in range(8):
        names = []
        k = int(rng.integers(3, 7))
        root = f"b{b}_c0"
        if prev_root is None:
            code = rng.choice(k, n)
        else:
            m = rng.integers(0, k, kinds[prev_root])
            code = np.where(rng.random(n) < 0.6, m[codes[prev_root]], rng.choice(k, n))
        add_cat(root, k, code)
        names.append(root)
        prev_root = root
        for j in range(1, 9):
            cat_parents = [p for p in names if kinds[p]]
            parent = cat_parents[int(rng.integers(len(cat_parents)))]
            pc = codes[parent]
            if b < 4 and j == 7:
                # Independent of everything: one operand of the parity.
                add_cat(f"b{b}_c7", kinds[root], rng.choice(kinds[root], n))
                names.append(f"b{b}_c7")
                continue
            if b < 4 and j == 8:
                k = kinds[root]
                code = (codes[root] + codes[f"b{b}_c7"]) % k
                code = np.where(rng.random(n) < 0.9, code, rng.choice(k, n))
                add_cat(f"b{b}_parity", k, code)
                names.append(f"b{b}_parity")
                continue
            if j % 2 == 1:
                k = int(rng.integers(2, 9))
                m = rng.integers(0, k, kinds[parent])
                code = np.where(rng.random(n) < 0.7, m[pc], rng.choice(k, n))
                name = f"b{b}_c{j}"
                add_cat(name, k, code)
            else:
                slope = rng.uniform(-3, 3)
                integer = j % 4 == 0
                scale = 10.0 if integer else 1.0
                x = scale * (5 + slope * (pc - kinds[parent] / 2) / kinds[parent] * 2 + rng.normal(0, 1.2, n))
                name = f"b{b}_x{j}"
                add_num(name, x, 0.0, 10 * scale, integer)
            names.append(name)
    score = 1.5 * (((codes["b0_c0"] + codes["b1_c0"]) % 2) * 2 - 1) + 0.8 * (cols["b2_x2"] > 5) + rng.normal(0, 1, n)
    add_cat("target", 2, (score > 0.4).astype(int))
    schema[-1]["categories"] = ["no", "yes"]
    cols["target"] = np.array(["no", "yes"])[codes["target"]]
    return finish(cols, schema), "target"


def digits():
    """scikit-learn's digits.csv.gz: 64 pixel columns then the digit."""
    import sklearn

    path = os.path.join(os.path.dirname(sklearn.__file__), "datasets", "data", "digits.csv.gz")
    with gzip.open(path, "rt") as f:
        raw = np.loadtxt(f, delimiter=",", dtype=int)
    cols, schema = {}, []
    for j in range(64):
        name = f"p{j // 8}{j % 8}"
        schema.append(num(name, 0, 16, integer=True))
        cols[name] = raw[:, j].astype(float)
    schema.append(cat("digit", [str(i) for i in range(10)]))
    cols["digit"] = raw[:, 64].astype(str)
    return finish(cols, schema), "digit"


def finish(cols, schema):
    for a in schema:
        if a["kind"] == "numeric":
            a["min"], a["max"] = float(a["min"]), float(a["max"])
            cols[a["name"]] = np.clip(cols[a["name"]], a["min"], a["max"])
    return pd.DataFrame({a["name"]: cols[a["name"]] for a in schema}), {"attributes": schema}


def fmt(v):
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def write(out, name, df, schema, label):
    os.makedirs(out, exist_ok=True)
    df = df.copy()
    for a in schema["attributes"]:
        if a["kind"] == "numeric":
            df[a["name"]] = [fmt(v) for v in df[a["name"]]]
    tmp = os.path.join(out, f".{name}.csv.tmp")
    df.to_csv(tmp, index=False)
    os.replace(tmp, os.path.join(out, name + ".csv"))
    with open(os.path.join(out, name + ".schema.json"), "w") as f:
        json.dump(schema, f, indent=1)
    with open(os.path.join(out, name + ".label"), "w") as f:
        f.write(label)


GENERATORS = {"zeroinfl": zeroinfl, "wide": wide, "digits": digits}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--tables", default=",".join(GENERATORS))
    a = p.parse_args()
    for name in a.tables.split(","):
        (df, schema), label = GENERATORS[name]()
        write(a.out, name, df, schema, label)
        print(f"{name}: {len(df)} rows, {df.shape[1]} columns, label {label}")


if __name__ == "__main__":
    main()
