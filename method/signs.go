package method

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Sign policies of a numeric setting, from its field's `sign` tag. A
// setting's zero value means "not given" (SetDefaults or RecordDefaults
// then fills it), so a zero or negative value that someone wrote down
// must be refused, not silently replaced by the default: a budget, δ or
// size is positive unless its field says otherwise.
const (
	// SignPositive (no tag): the value must be positive (and finite).
	SignPositive = ""
	// SignNonNegative: zero has a documented meaning of its own (a
	// frontier of 0 is "all"); negative values are refused.
	SignNonNegative = "nonneg"
	// SignNonZero: a negative value has a meaning of its own (a negative
	// bin share spends nothing on bins); zero would mean the default.
	SignNonZero = "nonzero"
	// SignAny: every value has a meaning (a seed).
	SignAny = "any"
)

// SignOf is the sign policy of a settings field (its `sign` tag).
func SignOf(f reflect.StructField) string { return f.Tag.Get("sign") }

// CheckSign checks a value given explicitly for a numeric setting under
// policy; integer says the setting is an integer (its message then says
// nothing of finiteness). The error's text follows the setting's name:
// "must be positive and finite, got 0".
func CheckSign(policy string, x float64, integer bool) error {
	// NaN and +Inf are left to the setting's own validation, which
	// states its range.
	positive := "must be positive and finite"
	if integer {
		positive = "must be positive"
	}
	switch {
	case policy == SignAny:
	case policy == SignNonNegative && x < 0:
		return fmt.Errorf("must not be negative, got %v", x)
	case policy == SignNonZero && x == 0:
		return fmt.Errorf("must not be 0 (leave it out for the default), got %v", x)
	case policy == SignPositive && x <= 0:
		return fmt.Errorf("%s, got %v", positive, x)
	}
	return nil
}

// CheckExplicit refuses a numeric setting written in raw (the JSON of
// settings st, before it is decoded over the defaults) whose value its
// sign policy refuses: {"delta": 0} is a mistake, not a request for the
// default δ, which leaving the key out asks for.
func CheckExplicit(raw json.RawMessage, st Settings) error {
	var given map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &given) != nil {
		return nil // DecodeStrict reports malformed JSON
	}
	return checkFields(reflect.TypeOf(st).Elem(), given)
}

func checkFields(t reflect.Type, given map[string]json.RawMessage) error {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := checkFields(f.Type, given); err != nil {
				return err
			}
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		v, ok := given[key]
		if !ok || key == "" || key == "-" {
			continue
		}
		var xs []float64
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
			var x float64
			if json.Unmarshal(v, &x) != nil {
				continue // DecodeStrict reports the type
			}
			xs = []float64{x}
		case reflect.Slice:
			if k := f.Type.Elem().Kind(); k != reflect.Float64 && k != reflect.Int {
				continue
			}
			if json.Unmarshal(v, &xs) != nil {
				continue
			}
		case reflect.Map:
			// Per-party numbers (budgets, bins): each value is checked.
			var m map[string]float64
			if k := f.Type.Elem().Kind(); (k != reflect.Float64 && k != reflect.Int) || json.Unmarshal(v, &m) != nil {
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(m)) {
				xs = append(xs, m[name])
			}
		default:
			continue
		}
		elem := f.Type
		if k := f.Type.Kind(); k == reflect.Slice || k == reflect.Map {
			elem = f.Type.Elem()
		}
		integer := elem.Kind() == reflect.Int || elem.Kind() == reflect.Int64
		for _, x := range xs {
			if err := CheckSign(SignOf(f), x, integer); err != nil {
				return FieldError{Key: key, Err: err}
			}
		}
	}
	return nil
}
