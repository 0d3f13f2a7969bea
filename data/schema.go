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
	// Categories lists the values of a categorical or binary attribute in
	// a fixed order; a cell holds the index into it. A binary attribute has
	// exactly two, index 0 being the negative one.
	Categories []string
}

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
	case Categorical, Binary:
		if a.Min != 0 || a.Max != 0 || a.Integer {
			return fmt.Errorf("data: %s attribute %q has numeric bounds or the integer flag", a.Kind, a.Name)
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
		a.Integer == b.Integer && slices.Equal(a.Categories, b.Categories)
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
}

// Validate checks every attribute and that names are unique.
func (s Schema) Validate() error {
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
// the ID column is kept.
func (s Schema) Select(names ...string) (Schema, error) {
	idx, err := s.indices(names)
	if err != nil {
		return Schema{}, err
	}
	out := Schema{ID: s.ID, Attributes: make([]Attribute, len(idx))}
	for k, i := range idx {
		out.Attributes[k] = s.Attributes[i].clone()
	}
	return out, nil
}

// Equal reports whether two schemas have the same ID column and the same
// attributes in the same order.
func (s Schema) Equal(o Schema) bool {
	return s.ID == o.ID && slices.EqualFunc(s.Attributes, o.Attributes, Attribute.Equal)
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
	out := Schema{ID: s.ID, Attributes: make([]Attribute, len(s.Attributes))}
	for i, a := range s.Attributes {
		out.Attributes[i] = a.clone()
	}
	return out
}

// schemaJSON and attributeJSON are the file format documented in doc.go.
// Bounds are pointers so that a missing bound is an error, not a zero.
type schemaJSON struct {
	ID         string          `json:"id,omitempty"`
	Attributes []attributeJSON `json:"attributes"`
}

type attributeJSON struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Min        *float64 `json:"min,omitempty"`
	Max        *float64 `json:"max,omitempty"`
	Integer    bool     `json:"integer,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// MarshalJSON writes the schema file format.
func (s Schema) MarshalJSON() ([]byte, error) {
	out := schemaJSON{ID: s.ID, Attributes: make([]attributeJSON, len(s.Attributes))}
	for i, a := range s.Attributes {
		aj := attributeJSON{Name: a.Name, Kind: a.Kind.String(), Integer: a.Integer, Categories: a.Categories}
		if a.Kind == Numeric {
			lo, hi := a.Min, a.Max
			aj.Min, aj.Max = &lo, &hi
		}
		out.Attributes[i] = aj
	}
	return json.Marshal(out)
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
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var sj schemaJSON
	if err := dec.Decode(&sj); err != nil {
		return Schema{}, fmt.Errorf("data: parse schema: %w", err)
	}
	if dec.More() {
		return Schema{}, errors.New("data: parse schema: trailing data after the schema object")
	}
	s := Schema{ID: sj.ID, Attributes: make([]Attribute, len(sj.Attributes))}
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

func (aj attributeJSON) attribute() (Attribute, error) {
	kind, err := ParseKind(aj.Kind)
	if err != nil {
		return Attribute{}, fmt.Errorf("data: attribute %q: %w", aj.Name, err)
	}
	a := Attribute{Name: aj.Name, Kind: kind, Integer: aj.Integer, Categories: aj.Categories}
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

// LoadSchema reads a schema file.
func LoadSchema(path string) (Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Schema{}, fmt.Errorf("data: read schema: %w", err)
	}
	s, err := ParseSchema(b)
	if err != nil {
		return Schema{}, fmt.Errorf("%w (in %q)", err, path)
	}
	return s, nil
}
