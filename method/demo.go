package method

import (
	"encoding/json"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// DemoInput is what a method's demo is laid out from: a built-in dataset
// (possibly cut to its first rows) and the number of data owners.
type DemoInput struct {
	Dataset string
	Table   *data.Table
	Owners  int
	// Src draws the split of records among owners; the split is not a
	// privacy mechanism.
	Src *randx.Source
}

// Demo is a method's ready-to-run consortium on one machine (`dppub
// consortium demo --method NAME`), as data the CLI writes out: the
// coordinating member at the first port, the data owners after it, then
// the After members; the method's settings in the consortium file; the
// owners' tables, schemas and lifetime budgets.
type Demo struct {
	// Extends names the method whose demo this one adds to: its members,
	// tables, schemas, budgets and settings stay, and this demo adds its
	// After members and its settings, replaces the budgets if it has its
	// own, and appends its Summary. The fields below marked "own layout"
	// are then unset.
	Extends string
	// Coordinator names the coordinating member, whose role is its name
	// (own layout).
	Coordinator string
	// Owners are the data owners' tables, in member order (own layout).
	Owners []*data.Table
	// OwnerPrefix names owner k (from 1) OwnerPrefix-k (own layout).
	OwnerPrefix string
	// Schema is the whole dataset's schema, written as DATASET.schema.json
	// (own layout).
	Schema data.Schema
	// ByColumns says the owners hold columns: each gets its own schema
	// file, DATASET.NAME.schema.json, beside the whole one (own layout).
	ByColumns bool
	// After are members listed after the owners.
	After []DemoMember
	// Settings are this method's entry in the consortium file.
	Settings json.RawMessage
	// Budget, if set, is every owner's lifetime budget.
	Budget *DemoBudget
	// Summary completes `Wrote consortium.json: consortium "demo" with …`
	// (or, extending a demo, is appended to its summary).
	Summary string
}

// DemoMember is a member of a demo consortium that holds no data.
type DemoMember struct {
	Name, Role string
	// PublishingLedger, if set, is the directory of the member's
	// publishing ledger.
	PublishingLedger string
}

// DemoBudget is an owner's lifetime budget in a demo consortium: ε (with
// δ) or ρ.
type DemoBudget struct {
	Epsilon, Delta, Rho float64
}

// WithDemo returns the spec with its demo layout.
func (s Spec) WithDemo(demo func(DemoInput) (*Demo, error)) Spec {
	s.Demo = demo
	return s
}

// SchemaFile is the name of a demo's whole-dataset schema file.
func (in DemoInput) SchemaFile() string { return in.Dataset + ".schema.json" }

// SchemaSettings is a demo's settings entry that names the whole-dataset
// schema file first and then has fields, members of a JSON object such as
// `"epsilon": 1`: the settings of every demo of owners of rows, which
// share that schema.
func (in DemoInput) SchemaSettings(fields string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"schema": %q, %s}`, in.SchemaFile(), fields))
}
