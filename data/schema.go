package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// Kind is the type of an attribute.
type Kind int

const (
	// Numeric attributes hold real values inside declared public bounds.
	Numeric Kind = iota
	// Categorical attributes hold one of a declared list of categories.
	Categorical
	// Binary attributes hold one of exactly two categories; index 0 is the
	// negative ("false") one.
	Binary
)

var kindNames = [...]string{Numeric: "numeric", Categorical: "categorical", Binary: "binary"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if s == name {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("data: unknown attribute kind %q (want numeric, categorical or binary)", s)
}

// Attribute describes one column of a table.
type Attribute struct {
	Name string
	Kind Kind
	// Min and Max are the declared public bounds of a numeric attribute.
	// They must never be computed from private data: the encoder's
	// sensitivity rests on them.
	Min, Max float64
	// Integer marks a numeric attribute whose values are whole numbers;
	// Decode rounds it.
	Integer bool
	// Decimals, when positive, is the number of decimal places a
	// non-integer numeric attribute is written with (WriteCSV); zero
	// writes the shortest plain decimal that reads back exactly.
	Decimals int
	// Categories lists the values of a categorical or binary attribute in
	// a fixed order; a cell holds the index into it. A binary attribute has
	// exactly two, index 0 being the negative one.
	Categories []string
	// Other, when set, names one of Categories that values outside the
	// list are read as (and counted), instead of being an error: a
	// category list chosen under DP leaves out rare values.
	Other string
}

// maxDecimals bounds Attribute.Decimals: float64 holds about 15
// significant decimal digits.
const maxDecimals = 15

// Validate checks one attribute on its own.
func (a Attribute) Validate() error {
	if a.Name == "" || strings.TrimSpace(a.Name) != a.Name {
		return fmt.Errorf("data: bad attribute name %q (empty or with surrounding space)", a.Name)
	}
	switch a.Kind {
	case Numeric:
		if len(a.Categories) != 0 {
			return fmt.Errorf("data: numeric attribute %q has categories", a.Name)
		}
		if !isFinite(a.Min) || !isFinite(a.Max) || a.Min >= a.Max {
			return fmt.Errorf("data: numeric attribute %q needs finite bounds min < max, got [%g, %g]", a.Name, a.Min, a.Max)
		}
		if a.Integer && (a.Min != math.Trunc(a.Min) || a.Max != math.Trunc(a.Max)) {
			return fmt.Errorf("data: integer attribute %q has non-integer bounds [%g, %g]", a.Name, a.Min, a.Max)
		}
		if a.Decimals < 0 || a.Decimals > maxDecimals || (a.Integer && a.Decimals != 0) {
			return fmt.Errorf("data: numeric attribute %q: decimals %d must be in 1..%d and not set on an integer attribute", a.Name, a.Decimals, maxDecimals)
		}
		if a.Other != "" {
			return fmt.Errorf("data: numeric attribute %q has an other category %q", a.Name, a.Other)
		}
	case Categorical, Binary:
		if a.Min != 0 || a.Max != 0 || a.Integer || a.Decimals != 0 {
			return fmt.Errorf("data: %s attribute %q has numeric bounds, decimals or the integer flag", a.Kind, a.Name)
		}
		if a.Other != "" && !slices.Contains(a.Categories, a.Other) {
			return fmt.Errorf("data: attribute %q: other category %q is not one of its categories", a.Name, a.Other)
		}
		if a.Kind == Binary && len(a.Categories) != 2 {
			return fmt.Errorf("data: binary attribute %q needs exactly 2 categories, got %d", a.Name, len(a.Categories))
		}
		if len(a.Categories) == 0 {
			return fmt.Errorf("data: categorical attribute %q has no categories", a.Name)
		}
		seen := make(map[string]bool, len(a.Categories))
		for _, c := range a.Categories {
			if c == "" || strings.TrimSpace(c) != c {
				return fmt.Errorf("data: attribute %q has a bad category %q (empty or with surrounding space)", a.Name, c)
			}
			if seen[c] {
				return fmt.Errorf("data: attribute %q lists category %q twice", a.Name, c)
			}
			seen[c] = true
		}
	default:
		return fmt.Errorf("data: attribute %q has unknown kind %d", a.Name, int(a.Kind))
	}
	return nil
}

// Equal reports whether two attributes have the same definition.
func (a Attribute) Equal(b Attribute) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.Min == b.Min && a.Max == b.Max &&
		a.Integer == b.Integer && a.Decimals == b.Decimals && a.Other == b.Other &&
		slices.Equal(a.Categories, b.Categories)
}

// CategoryIndex returns the index of category c.
func (a Attribute) CategoryIndex(c string) (int, error) {
	if i := slices.Index(a.Categories, c); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("data: unknown category %q of attribute %q", c, a.Name)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Schema lists a table's attributes in column order, plus the optional
// name of an ID column that is carried along but is not an attribute.
type Schema struct {
	Attributes []Attribute
	ID         string
	// Label, when set, names the categorical or binary attribute that
	// commands predict or stratify by when no --label is given. It is a
	// default for commands, not part of the table's definition: Equal
	// ignores it.
	Label string
	// Draft marks a schema written by `dppub schema` that nobody has
	// reviewed yet. ParseSchema and LoadSchema refuse it (ErrDraft), so
	// no publishing command runs on an unreviewed draft.
	Draft bool
}

// ErrDraft is returned for a schema still marked as an unreviewed draft.
var ErrDraft = errors.New("data: unreviewed draft schema")

// Validate checks every attribute, that names are unique and that the
// label, if any, names a categorical or binary attribute. It refuses a
// draft.
func (s Schema) Validate() error {
	if s.Draft {
		return ErrDraft
	}
	if err := s.validateAttributes(); err != nil {
		return err
	}
	if s.Label == "" {
		return nil
	}
	a, err := s.Attribute(s.Label)
	if err != nil {
		return fmt.Errorf("data: schema label: %w", err)
	}
	if a.Kind == Numeric {
		return fmt.Errorf("data: schema label %q is numeric; a label must be categorical or binary", s.Label)
	}
	return nil
}

func (s Schema) validateAttributes() error {
	if len(s.Attributes) == 0 {
		return errors.New("data: schema has no attributes")
	}
	if s.ID != "" && strings.TrimSpace(s.ID) != s.ID {
		return fmt.Errorf("data: bad ID column name %q", s.ID)
	}
	seen := make(map[string]bool, len(s.Attributes)+1)
	if s.ID != "" {
		seen[s.ID] = true
	}
	for _, a := range s.Attributes {
		if err := a.Validate(); err != nil {
			return err
		}
		if seen[a.Name] {
			return fmt.Errorf("data: column name %q used twice", a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// Index returns the column index of the named attribute.
func (s Schema) Index(name string) (int, error) {
	for i, a := range s.Attributes {
		if a.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("data: unknown attribute %q (have %s)", name, strings.Join(s.Names(), ", "))
}

// Attribute returns the named attribute.
func (s Schema) Attribute(name string) (Attribute, error) {
	i, err := s.Index(name)
	if err != nil {
		return Attribute{}, err
	}
	return s.Attributes[i], nil
}

// Names returns the attribute names in column order.
func (s Schema) Names() []string {
	names := make([]string, len(s.Attributes))
	for i, a := range s.Attributes {
		names[i] = a.Name
	}
	return names
}

// Select returns the schema of the named attributes, in the order given;
// the ID column is kept, and the label if it is selected.
func (s Schema) Select(names ...string) (Schema, error) {
	idx, err := s.indices(names)
	if err != nil {
		return Schema{}, err
	}
	out := Schema{ID: s.ID, Attributes: make([]Attribute, len(idx))}
	for k, i := range idx {
		out.Attributes[k] = s.Attributes[i].clone()
		if out.Attributes[k].Name == s.Label {
			out.Label = s.Label
		}
	}
	return out, nil
}

// Equal reports whether two schemas have the same ID column and the same
// attributes in the same order.
func (s Schema) Equal(o Schema) bool {
	return s.ID == o.ID && s.EqualAttributes(o)
}

// EqualAttributes reports whether two schemas have the same attributes in
// the same order, whatever their ID columns: a synthetic table has the
// real one's attributes but no IDs (its rows stand for no one).
func (s Schema) EqualAttributes(o Schema) bool {
	return slices.EqualFunc(s.Attributes, o.Attributes, Attribute.Equal)
}

func (s Schema) indices(names []string) ([]int, error) {
	if len(names) == 0 {
		return nil, errors.New("data: no attributes selected")
	}
	idx := make([]int, len(names))
	seen := make(map[string]bool, len(names))
	for k, name := range names {
		if seen[name] {
			return nil, fmt.Errorf("data: attribute %q selected twice", name)
		}
		seen[name] = true
		i, err := s.Index(name)
		if err != nil {
			return nil, err
		}
		idx[k] = i
	}
	return idx, nil
}

func (a Attribute) clone() Attribute {
	a.Categories = slices.Clone(a.Categories)
	return a
}

func (s Schema) clone() Schema {
	out := s
	out.Attributes = make([]Attribute, len(s.Attributes))
	for i, a := range s.Attributes {
		out.Attributes[i] = a.clone()
	}
	return out
}

// schemaJSON and attributeJSON are the file format documented in doc.go.
// Bounds are pointers so that a missing bound is an error, not a zero.
type schemaJSON struct {
	Draft      bool            `json:"draft,omitempty"`
	ID         string          `json:"id,omitempty"`
	Label      string          `json:"label,omitempty"`
	Attributes []attributeJSON `json:"attributes"`
}

type attributeJSON struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Min        *float64 `json:"min,omitempty"`
	Max        *float64 `json:"max,omitempty"`
	Integer    bool     `json:"integer,omitempty"`
	Decimals   *int     `json:"decimals,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Other      string   `json:"other,omitempty"`
}

// attributeOut is attributeJSON for writing: a NaN bound (a draft's
// placeholder) is written as null, so the field is there to fill in.
type attributeOut struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Min        any      `json:"min,omitempty"`
	Max        any      `json:"max,omitempty"`
	Integer    bool     `json:"integer,omitempty"`
	Decimals   int      `json:"decimals,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Other      string   `json:"other,omitempty"`
}

type schemaOut struct {
	Draft      bool           `json:"draft,omitempty"`
	ID         string         `json:"id,omitempty"`
	Label      string         `json:"label,omitempty"`
	Attributes []attributeOut `json:"attributes"`
}

// MarshalJSON writes the schema file format. A draft's unknown numeric
// bounds (NaN) are written as null.
func (s Schema) MarshalJSON() ([]byte, error) {
	out := schemaOut{Draft: s.Draft, ID: s.ID, Label: s.Label, Attributes: make([]attributeOut, len(s.Attributes))}
	for i, a := range s.Attributes {
		ao := attributeOut{Name: a.Name, Kind: a.Kind.String(), Integer: a.Integer,
			Decimals: a.Decimals, Categories: a.Categories, Other: a.Other}
		if a.Kind == Numeric {
			ao.Min, ao.Max = boundOut(a.Min), boundOut(a.Max)
		}
		out.Attributes[i] = ao
	}
	return json.Marshal(out)
}

func boundOut(v float64) any {
	if math.IsNaN(v) {
		return json.RawMessage("null")
	}
	return v
}

// UnmarshalJSON reads and validates the schema file format.
func (s *Schema) UnmarshalJSON(b []byte) error {
	parsed, err := ParseSchema(b)
	if err != nil {
		return err
	}
	*s = parsed
	return nil
}

// ParseSchema reads a schema in the JSON format documented in the package
// comment and validates it. Unknown fields are rejected so that a typo
// cannot silently drop a bound.
func ParseSchema(b []byte) (Schema, error) {
	if isDraft(b) {
		return Schema{}, ErrDraft
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var sj schemaJSON
	if err := dec.Decode(&sj); err != nil {
		return Schema{}, fmt.Errorf("data: parse schema: %w", err)
	}
	if dec.More() {
		return Schema{}, errors.New("data: parse schema: trailing data after the schema object")
	}
	s := Schema{ID: sj.ID, Label: sj.Label, Attributes: make([]Attribute, len(sj.Attributes))}
	for i, aj := range sj.Attributes {
		a, err := aj.attribute()
		if err != nil {
			return Schema{}, err
		}
		s.Attributes[i] = a
	}
	if err := s.Validate(); err != nil {
		return Schema{}, err
	}
	return s, nil
}

// isDraft reports whether a schema file sets "draft": true. It is checked
// before strict parsing so that a draft, whose placeholders would fail
// with some other message, is refused for what it is.
func isDraft(b []byte) bool {
	var d struct {
		Draft bool `json:"draft"`
	}
	return json.Unmarshal(b, &d) == nil && d.Draft
}

func (aj attributeJSON) attribute() (Attribute, error) {
	kind, err := ParseKind(aj.Kind)
	if err != nil {
		return Attribute{}, fmt.Errorf("data: attribute %q: %w", aj.Name, err)
	}
	a := Attribute{Name: aj.Name, Kind: kind, Integer: aj.Integer, Categories: aj.Categories, Other: aj.Other}
	if aj.Decimals != nil {
		if *aj.Decimals < 1 {
			return Attribute{}, fmt.Errorf("data: attribute %q: \"decimals\": %d must be at least 1 (for whole numbers write \"integer\": true)", aj.Name, *aj.Decimals)
		}
		a.Decimals = *aj.Decimals
	}
	switch {
	case kind == Numeric && (aj.Min == nil || aj.Max == nil):
		return Attribute{}, fmt.Errorf("data: numeric attribute %q needs both \"min\" and \"max\" (declared public bounds)", aj.Name)
	case kind != Numeric && (aj.Min != nil || aj.Max != nil):
		return Attribute{}, fmt.Errorf("data: %s attribute %q must not have \"min\" or \"max\"", kind, aj.Name)
	case kind == Numeric:
		a.Min, a.Max = *aj.Min, *aj.Max
	case kind == Binary && len(aj.Categories) == 0:
		a.Categories = []string{"0", "1"}
	}
	return a, nil
}

// LoadSchema reads a schema file. A draft is refused with one line that
// says what to do (the error wraps ErrDraft).
func LoadSchema(path string) (Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Schema{}, fmt.Errorf("data: read schema: %w", err)
	}
	s, err := ParseSchema(b)
	if errors.Is(err, ErrDraft) {
		return Schema{}, fmt.Errorf("%w %q: review every column (fill each null bound with a public value, check kinds and category lists), then delete the line \"draft\": true", err, path)
	}
	if err != nil {
		return Schema{}, fmt.Errorf("%w (in %q)", err, path)
	}
	return s, nil
}
