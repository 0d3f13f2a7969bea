#!/usr/bin/env python3
"""Time scikit-learn's PCA + LinearSVC on the table the Go pipeline uses.

The DPPCA-SVM benchmark (go test ./method/dppcasvm/figures -bench DPPCAPipelineCovertypeShape)
times, after loading: the second moment, the eigendecomposition, the
projection and the SVM on 581012 x 54 generated rows of Covertype's shape.
This script times the same steps with scikit-learn on the same rows:

    dppub eval dppca-svm --write-covtype-like /tmp/covtype-like.csv --seed 1
    python3 bench/sklearn_pca_svc.py /tmp/covtype-like.csv --k 2

The rows get the same preprocessing as in Go (encoded [0,1] columns centred
at 0.5, rows clipped to unit L2 norm); loading and preprocessing are not
timed. LinearSVC runs twice: with scikit-learn's defaults (squared hinge,
C=1, dual coordinate descent, tol=1e-4, max_iter=1000) and with tol=0.1,
LIBLINEAR's own default stopping tolerance.
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="table written by dppub eval dppca-svm --write-covtype-like")
    ap.add_argument("--k", type=int, default=0, help="components (default: alpha = 0.85 of X^T X / n)")
    ap.add_argument("--reps", type=int, default=1, help="timed repetitions of each configuration")
    args = ap.parse_args()

    data = np.loadtxt(args.csv, delimiter=",", skiprows=1)
    X, y = data[:, :-1] - 0.5, data[:, -1].astype(int)
    norms = np.linalg.norm(X, axis=1)
    X /= np.maximum(norms, 1.0)[:, None]
    k = args.k
    if k == 0:
        vals = np.clip(np.linalg.eigvalsh(X.T @ X / len(X))[::-1], 0, None)
        k = int(np.searchsorted(np.cumsum(vals) / vals.sum(), 0.85 - 1e-12) + 1)
    print(f"rows {X.shape[0]} x {X.shape[1]}, {len(set(y))} classes, k = {k}")

    for label, tol in (("LinearSVC defaults (tol=1e-4)", 1e-4), ("LinearSVC tol=0.1 (LIBLINEAR default)", 0.1)):
        for rep in range(args.reps):
            t0 = time.perf_counter()
            Y = PCA(n_components=k).fit_transform(X)
            t1 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                clf = LinearSVC(tol=tol).fit(Y, y)
            t2 = time.perf_counter()
            converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
            print(f"{label}: total {t2 - t0:.3f} s (PCA {t1 - t0:.3f} s, LinearSVC {t2 - t1:.3f} s), "
                  f"train accuracy {clf.score(Y, y):.4f}, converged {converged}")


if __name__ == "__main__":
    main()
