#!/usr/bin/python3
"""Run one private-pgm mechanism (AIM or MST) on a discretised table.

Called by bench.py as a subprocess, so that its wall-clock and CPU time are
measured alone. Input: a CSV of bin indices (one column per attribute) and a
JSON object {attribute: domain size}. Output: a CSV of bin indices.

private-pgm is used as pinned (commit 514dea3): its mechanisms/aim.py and
mechanisms/mst.py are imported unchanged. Two things are provided around
them, neither of which touches a mechanism's arithmetic:
  * hdmm.matrix.Identity, which aim.py imports from the (separate) hdmm
    package, is served by scipy.sparse.identity: AIM only uses it as the
    identity query matrix of a measurement, exactly what mst.py passes.
  * autodp.rdp_acct is imported before autodp.privacy_calibrator, which
    otherwise fails on a circular import.
With --rho-factor, AIM's zCDP budget (its attribute rho, which run() reads)
is scaled before the run, to compare at dppub's neighbouring relation; for
MST, which converts (ε, δ) to ρ itself, the cdp_rho it calls is scaled (the
mechanism's code is untouched: every share of its ρ scales alike).
"""
import argparse
import itertools
import json
import sys
import types

import numpy as np
import pandas as pd


def setup_paths(pgm, autodp):
    sys.path[:0] = [autodp, pgm + "/src", pgm, pgm + "/mechanisms"]
    import scipy.sparse

    hdmm = types.ModuleType("hdmm")
    matrix = types.ModuleType("hdmm.matrix")
    matrix.Identity = lambda n: scipy.sparse.identity(n, format="csr")
    hdmm.matrix = matrix
    sys.modules.setdefault("hdmm", hdmm)
    sys.modules.setdefault("hdmm.matrix", matrix)
    import autodp.rdp_acct  # noqa: F401  (before privacy_calibrator)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--method", choices=["aim", "mst"], required=True)
    p.add_argument("--train", required=True)
    p.add_argument("--domain", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--epsilon", type=float, required=True)
    p.add_argument("--delta", type=float, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pgm", required=True)
    p.add_argument("--autodp", required=True)
    p.add_argument("--rounds", type=int, default=0, help="AIM rounds (0: AIM's default 16·d)")
    p.add_argument("--rounds-per-attr", type=float, default=0, help="AIM rounds as a multiple of d")
    p.add_argument("--max-model-size", type=float, default=80, help="AIM model size cap in MB")
    p.add_argument("--max-iters", type=int, default=1000, help="AIM inference iterations")
    p.add_argument("--max-cells", type=int, default=10000, help="largest workload marginal (AIM's default)")
    p.add_argument("--workload-sample", type=int, default=0,
                   help="keep only this many of the workload's pairs (0: all), drawn once with --workload-seed, "
                        "besides every pair that involves --workload-keep")
    p.add_argument("--workload-seed", type=int, default=16)
    p.add_argument("--workload-keep", default="", help="attribute whose pairs all stay in a sampled workload (the label)")
    p.add_argument("--rho-factor", type=float, default=1.0,
                   help="run AIM or MST at this fraction of cdp_rho(epsilon, delta) (1/2.2: the same guarantee as dppub's, see README)")
    a = p.parse_args()
    setup_paths(a.pgm, a.autodp)
    from mbi import Dataset, Domain

    np.random.seed(a.seed)
    sizes = json.load(open(a.domain))
    domain = Domain(list(sizes.keys()), list(sizes.values()))
    df = pd.read_csv(a.train)
    data = Dataset(df, domain)
    if a.method == "mst":
        import mst
        from mst import MST

        if a.rho_factor != 1.0:
            full = mst.cdp_rho
            mst.cdp_rho = lambda eps, delta: a.rho_factor * full(eps, delta)
        synth = MST(data, a.epsilon, a.delta)
    else:
        from aim import AIM

        d = len(domain)
        rounds = a.rounds or (int(round(a.rounds_per_attr * d)) if a.rounds_per_attr else None)
        workload = [
            (cl, 1.0)
            for cl in itertools.combinations(domain.attrs, 2)
            if domain.size(cl) <= a.max_cells
        ]
        if a.workload_sample:
            # The same sample at every epsilon and repetition (its own
            # generator, not the run's seed), the way aim.py's own
            # --num_marginals samples the workload; pairs with the label
            # stay so that the classifiers' features keep their link to it.
            keep = [w for w in workload if a.workload_keep in w[0]]
            rest = [w for w in workload if a.workload_keep not in w[0]]
            pick = np.random.default_rng(a.workload_seed).choice(len(rest), min(a.workload_sample, len(rest)), replace=False)
            workload = keep + [rest[i] for i in sorted(pick)]
        print("workload pairs", len(workload))
        mech = AIM(a.epsilon, a.delta, rounds=rounds, max_model_size=a.max_model_size, max_iters=a.max_iters)
        # AIM reads its budget from mech.rho at run(); scaling it changes
        # nothing else in the mechanism.
        mech.rho *= a.rho_factor
        mech.prng = np.random
        _, synth = mech.run(data, workload)
    synth.df.loc[:, list(domain.attrs)].to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
