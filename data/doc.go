// Package data holds tables of records with a declared schema: reading
// and writing delimited text, encoding rows as bounded real vectors (and
// decoding synthetic vectors back), and splitting a table among data
// owners horizontally (by rows) or vertically (by attributes).
//
// # Schemas and public bounds
//
// Every numeric attribute carries declared bounds [Min, Max]. They are
// public: a data owner writes them down from domain knowledge (a census
// code book, a sensor's range), never computes them from the private
// data, because the sensitivity of every statistic the DP mechanisms
// release rests on them. For the same reason this package has no schema
// inference: package schemadisc drafts a schema either with bounds found
// under DP (charged to the owner's budget) or with null placeholders and
// "draft": true, which LoadSchema refuses until someone has reviewed it.
// Values read outside the bounds are kept as read (and counted); the
// Encoder clamps them.
//
// # Schema file format
//
// A schema file is a JSON object:
//
//	{
//	  "id": "patient",
//	  "label": "smoker",
//	  "attributes": [
//	    {"name": "age", "kind": "numeric", "min": 0, "max": 100, "integer": true},
//	    {"name": "weight", "kind": "numeric", "min": 30, "max": 250, "decimals": 1},
//	    {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
//	    {"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}
//	  ]
//	}
//
// Its fields:
//   - "id" (optional) names an ID column that is carried along with each
//     row but is not an attribute: it is never encoded or released.
//   - "label" (optional) names the categorical or binary attribute that
//     commands use as the class label when no --label is given.
//   - "draft": true marks an unreviewed draft from `dppub schema`;
//     LoadSchema refuses it (ErrDraft) until the line is deleted.
//   - "kind" is "numeric", "categorical" or "binary".
//   - A numeric attribute needs "min" < "max", both finite; "integer"
//     (optional) says its values are whole numbers, so decoded values are
//     rounded; "decimals" (optional, 1 to 15) is the number of decimal
//     places a non-integer attribute is written with. WriteCSV never uses
//     exponent notation.
//   - A categorical attribute lists its "categories" in a fixed order; a
//     table cell holds the index into that list. Category names are
//     matched exactly (after the reader trims surrounding space). "other"
//     (optional) names one of the categories that values outside the list
//     are read as, counted in ReadStats.MappedToOther.
//   - A binary attribute has exactly two categories, the negative one
//     first; without "categories" they are ["0", "1"].
//
// Unknown fields are rejected, so a misspelt "max" is an error rather
// than a silently missing bound.
//
// # Encoding
//
// The Encoder maps a numeric value v to (v−Min)/(Max−Min) clamped into
// [0, 1], a binary value to its index 0 or 1, and a categorical value to a
// one-hot group with one column per category, so every encoded cell lies
// in [0, 1]. NormalizeRowsL2 and ClipRowsL2 then bound each row's
// Euclidean norm, as the covariance-based methods need.
package data
