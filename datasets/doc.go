// Package datasets provides the evaluation datasets of the papers dppub
// implements, each with a schema declared in code.
//
// Three are embedded in the binary, gzip-compressed (datasets/files):
// adult (UCI Adult, train and test files joined, rows with a missing value
// dropped: 45222 rows), nltcs (21574 rows of 16 binary disability
// indicators) and wdbc (569 breast-cancer biopsies, 30 features). Three
// more are read from a directory when present, because they are large or
// their licence does not allow redistribution: musk2, shuttle and big5.
// Load looks for them in $DPPUB_DATA/<name> and then in
// <module root>/../shared/data/<name>.
//
// # Bounds are declared, not measured
//
// Every numeric attribute's bounds are written in this package's source,
// as round values justified by the dataset's public documentation (a
// census top-code, a measurement's definition) or, where the
// documentation is silent, as generous round caps fixed once for the
// benchmark. They are never computed from the rows at load time: the
// sensitivity of every released statistic rests on them, and bounds read
// off the data would leak it. A value outside its bounds is kept as read
// and clamped by the data.Encoder.
//
// # Category order
//
// Categories are listed in a fixed, documented order (for Adult, the
// order of adult.names), so that category indices and one-hot columns
// mean the same thing in every run and for every party.
package datasets
