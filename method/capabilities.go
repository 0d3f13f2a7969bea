package method

import (
	"fmt"
	"reflect"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/ownerstats"
)

// Capabilities: what a method's session or in-process result
// (Outcome.Detail) can do for the framework that runs it. A command
// line, the transport or an evaluation asks for a capability (a type
// assertion to one of these interfaces) instead of for the method's
// concrete type or name, so that it knows a method only through its Spec
// and these interfaces; one that lacks a capability simply does not
// offer it (no statistics scan, no table schema, no summary).

// StatisticsScanner is a session whose owners' roles may be built from
// the statistics of their rows (Local.Statistics) instead of the rows
// (ppca-dp-mh's): a member whose rows are in a delimited file then scans
// the file for them in one pass and never builds the table.
// ScanStatistics gives the configuration to compute them with, false
// when this session's role needs the rows, or an error when the owner's
// schema own does not fit the session.
type StatisticsScanner interface {
	ScanStatistics(owner string, own data.Schema) (ownerstats.Config, bool, error)
}

// RowSink takes a run's synthetic rows decoded, a chunk at a time and in
// the order of the outcome's table, instead of the whole table: the rows,
// the bulk of a release, need never be held whole. A coordinator of a
// method whose Spec.StreamsRows is set takes it as its attachment
// (LocalOptions.Attach, Session.Coordinate's attach) and then publishes
// no Outcome.Table.
type RowSink func(t *data.Table) error

// TableSchema is a result that names the schema of the table it
// publishes, whether or not any row came (a streamed output's header).
type TableSchema interface {
	TableSchema() data.Schema
}

// RowChunks is a result whose synthetic table is decoded on demand, a
// chunk at a time, rather than held whole.
type RowChunks interface {
	TableSchema
	// RowCount is the number of synthetic records.
	RowCount() int
	// Chunks returns how many chunks the table has and a decoder of
	// chunk k into t, safe to call concurrently for different chunks
	// (each its own t); chunk k always decodes to the same rows. It
	// draws the chunks' randomness: call it once.
	Chunks() (n int, decode func(k int, t *data.Table) error)
}

// UsedSettings is a result that knows settings values the run chose
// itself (a default that depends on the data, e.g. δ = 1/n² or the
// number of rows), so that a report records what ran rather than what
// the command line left unset.
type UsedSettings interface {
	// RecordUsed writes the values the run used into st, the settings
	// the run was given (a pointer to the method's settings struct).
	RecordUsed(st Settings)
}

// Summarizer is a result that tells its owner on the terminal what the
// run did, for the owner's eyes only (never published): Summary lines
// about the model, printed with the framework's own utility figures on
// the owner's data, then Notes (the time taken, the budget's
// conversion, values clamped).
type Summarizer interface {
	Summary() []string
	Notes() []string
}

// Classifier is a result that is a classifier of the owner's records:
// the framework measures it on the owner's own rows (never published).
type Classifier interface {
	// Classify predicts t's records' classes and returns them with their
	// true classes.
	Classify(t *data.Table) (pred, truth []int, err error)
	// Weak returns a warning when accuracy, measured on rows whose most
	// common class has share majority, says the classifier learnt
	// nothing useful; "" otherwise.
	Weak(accuracy, majority float64) string
}

// Attached returns a run's attachment (LocalOptions.Attach, Local.Attach,
// Session.Coordinate's attach) as the type T its method takes: the zero T
// when the run attached nothing, and an error naming both types when it
// attached something else. An attachment is never dropped without a word:
// a row sink or a progress display that a method ignored would lose output
// silently.
func Attached[T any](attach any) (T, error) {
	var zero T
	if attach == nil {
		return zero, nil
	}
	t, ok := attach.(T)
	if !ok {
		return zero, fmt.Errorf("the run attached a %T where the method takes a %v", attach, reflect.TypeFor[T]())
	}
	return t, nil
}
