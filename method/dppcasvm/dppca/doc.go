// Package dppca is the mathematics of DPPCA-SVM and PCA-DPSVM (Huang, Yang,
// Xu, Zhou: "Differential Privacy Principal Component Analysis for Support
// Vector Machines", Security and Communication Networks 2021; see
// ../shared/papers/dppca-svm.txt and docs/errata.md#dppca-svm-and-pca-dpsvm)
// and of the two baselines the paper compares against, AG-SVM (Analyze
// Gauss, Dwork, Talwar, Thakurta & Zhang, STOC 2014) and MOD-SuLQ-SVM
// (Chaudhuri, Sarwate & Sinha, JMLR 2013).
//
// Every method works on rows with ‖x‖₂ ≤ 1 (ClipRows) and the second
// moment A = XᵀX/n (the paper's Eq. 1, which it calls the covariance):
//
//   - dppca-svm: A + E with E symmetric, its upper triangle i.i.d.
//     Laplace (Algorithm 1); the top-k eigenvectors V_k of the noisy matrix,
//     k by the contribution rate α (Eq. 3) or fixed; Y = XV_k (Eq. 4); SVM.
//   - ag-svm, mod-sulq-svm: the same with symmetric Gaussian noise.
//   - pca-dpsvm: exact PCA and SVM, then noise on the weights w
//     (Algorithm 2).
//
// Calibrations. Paper reproduces the paper: its noise scales, and an SVM
// trained without privacy on the projections of the real rows, so only the
// components are DP (and for pca-dpsvm, nothing is end to end). Sound, the
// default, uses the true replace-one sensitivities and splits the budget
// between the components and an SVM trained by objective perturbation
// (Chaudhuri, Monteleoni & Sarwate, JMLR 2011) on the projected rows, so
// that the published model is DP end to end. Every charge goes through a
// privacy.Accountant before the noisy value is computed.
//
// The package has no I/O: method/dppcasvm (dppcasvm.Publish) encodes tables, builds the
// published model and the privacy report.
package dppca
