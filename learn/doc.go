// Package learn holds the linear classifiers that dppub's evaluations and
// differentially private learners are built on.
//
// Data comes as a *mat.Dense whose rows are examples (already encoded, e.g.
// into [0,1] or onto the unit ball) and labels as class indices 0..C−1.
//
//   - TrainBinarySVM / TrainSVM: L2-regularised linear SVM with L1 (hinge) or
//     L2 (squared hinge) loss, solved by dual coordinate descent with random
//     permutations and shrinking (Hsieh, Chang, Lin, Keerthi & Sundararajan,
//     ICML 2008), stopping on the projected-gradient gap as LIBLINEAR does.
//     Several classes are handled one-vs-rest.
//   - TrainLogReg: L2-regularised logistic regression (mean loss + λ/2‖w‖²)
//     minimised with L-BFGS (a small in-package implementation).
//   - TrainDPLinear / TrainDPClassifier: ε-differentially private empirical
//     risk minimisation by output or objective perturbation (Chaudhuri,
//     Monteleoni & Sarwate, JMLR 2011), for logistic and Huber-hinge loss.
//     The optimiser must certify ‖∇J‖₂ ≤ τ or nothing is released; the
//     residual distance to the exact minimiser is added to the output
//     perturbation's sensitivity, and objective perturbation covers it with
//     a small share of ε on extra noise (Iyengar et al. 2019). The weights
//     are released on a public grid, g·(⌊w/g⌉ + ⌊v/g⌉), so they carry no
//     low-order bits of the data (DPERMOptions.Plan states every number).
//   - Accuracy, MisclassificationRate, ConfusionMatrix.
//
// A bias is learned, when asked, as the weight of a constant feature
// (LIBLINEAR's -B 1), so it is regularised like the other weights.
package learn
