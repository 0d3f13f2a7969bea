// Package model is the published form of a classifier: a JSON document
// that holds everything needed to apply it to raw CSV rows (the schema of
// the attributes it reads, the encoding into [0,1], any centring, scaling
// and row clipping, an optional linear projection such as principal
// components, and one linear scorer per binary problem), plus the privacy
// report of the release that produced it.
//
// Applying a model is a fixed pipeline:
//
//	encode (data.Encoder: numeric (v−min)/(max−min) clamped to [0,1],
//	        binary 0/1, categorical one-hot)
//	→ x ← (x − centre) / scale            (if given)
//	→ x ← x / ‖x‖₂                        (if normalize_l2; zero rows stay)
//	→ x ← x · min(1, clip/‖x‖₂)           (if clip > 0)
//	→ y ← (x − mean) · components         (if a projection is given)
//	→ scores W·y + b; one model: class 1 if its score > 0, else class 0;
//	  one per class (one-vs-rest): the highest score, ties to the lower.
//
// With "positive" categories of the label the task is binary: class 1 when
// a row's label is one of them.
//
// Every method that publishes a linear classifier (DPPCA-SVM and its
// baselines, MP-CRDP's logistic regression or SVM) writes this format;
// LDA-DP's model file converts to it (method/mullda).
package model
