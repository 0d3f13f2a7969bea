package kit

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/dppub/dppub/method"
	"github.com/spf13/pflag"
)

// BindSettings registers one flag per field of a method's settings (a
// pointer to its struct, defaults filled): the flag is the field's JSON
// key with '-' for '_', its default the field's value, its help the
// field's `help` tag. Fields of embedded structs are flattened; fields of
// kinds a flag cannot hold (maps, structs, lists of structs) are left to
// --settings FILE. The flags write straight into the struct, so the
// settings are validated once, by the method. A list flag splits its
// value at commas unless the field is tagged flag:"array" (its values
// hold commas themselves: repeat the flag instead). Only the lists
// []string and []float64 are bound.
func BindSettings(fs *pflag.FlagSet, settings any) {
	v := reflect.ValueOf(settings).Elem()
	applies := func(string) bool { return true }
	if p, ok := settings.(partial); ok {
		applies = p.Applies
	}
	bindStruct(fs, v, applies)
}

// partial is implemented by settings that several methods share but
// whose fields do not all apply to each (DPPCA-SVM's four variants): a
// key that does not apply gets no flag, so the command refuses it as it
// refuses any unknown flag.
type partial interface {
	Applies(key string) bool
}

func bindStruct(fs *pflag.FlagSet, v reflect.Value, applies func(string) bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			bindStruct(fs, v.Field(i), applies)
			continue
		}
		key := jsonKey(f)
		name := flagName(f)
		if name == "" || fs.Lookup(name) != nil || !bindable(f.Type) || !applies(key) {
			continue
		}
		help := f.Tag.Get("help")
		if help == "" {
			help = "the method's " + strings.ReplaceAll(name, "-", " ") + " setting"
		}
		// Lists take pflag's own values, so they parse and print as a
		// hand-declared list flag does.
		switch p := v.Field(i).Addr().Interface().(type) {
		case *[]string:
			if f.Tag.Get("flag") == "array" {
				fs.StringArrayVar(p, name, *p, help)
			} else {
				fs.StringSliceVar(p, name, *p, help)
			}
		case *[]float64:
			fs.Float64SliceVar(p, name, *p, help)
			fl := fs.Lookup(name)
			fl.Value = &signValue{Value: fl.Value, name: name, policy: method.SignOf(f)}
		default:
			fv := &fieldValue{v: v.Field(i), name: name, policy: method.SignOf(f)}
			fv.def = reflect.New(f.Type).Elem()
			fv.def.Set(v.Field(i))
			if isNumber(f.Type) && fv.def.IsZero() {
				help += " (auto, or leave it out: " + autoMeaning(key) + ")"
			}
			fl := fs.VarPF(fv, name, "", help)
			if f.Type.Kind() == reflect.Bool {
				fl.NoOptDefVal = "true"
			}
		}
	}
}

// flagName is the field's JSON key as a flag name ("" for none, and for
// fields tagged flag:"-", which a one-process run sets itself).
func flagName(f reflect.StructField) string {
	if f.Tag.Get("flag") == "-" {
		return ""
	}
	key := jsonKey(f)
	if key == "-" || key == "" {
		return ""
	}
	return strings.ReplaceAll(key, "_", "-")
}

func jsonKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return key
}

// FlagErrors names the flag of a mistake in one setting (a
// method.FieldError whose JSON key BindSettings bound as a flag), so that
// a command line speaks of its flags: "--rho must be positive", not "rho
// must be positive". Other errors pass unchanged.
func FlagErrors(fs *pflag.FlagSet, err error) error {
	var fe method.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	name := strings.ReplaceAll(fe.Key, "_", "-")
	if fs.Lookup(name) == nil {
		return err
	}
	return UsageError{fmt.Errorf("--%s %w", name, fe.Err)}
}

func bindable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		return true
	}
	return t == reflect.TypeFor[[]string]() || t == reflect.TypeFor[[]float64]()
}

// fieldValue is a flag over one scalar settings field. A number given
// on the command line is checked against the field's sign policy
// (method.CheckSign) as it is parsed: the settings' zero means "not
// given", so --bins 0 or --delta 0 is refused rather than silently
// replaced by the default. The word auto asks for the default
// explicitly (def, the field's value when the flag was bound).
type fieldValue struct {
	v      reflect.Value
	def    reflect.Value
	name   string
	policy string
	err    error
}

// AutoWord asks a numeric flag for its default explicitly.
const AutoWord = "auto"

func isNumber(t reflect.Type) bool {
	return t.Kind() == reflect.Int || t.Kind() == reflect.Float64
}

// autoMeaning says what a numeric setting left out means.
func autoMeaning(key string) string {
	if key == "delta" {
		return "chosen by the run, at most 1e-5"
	}
	return "the method's default"
}

func (f *fieldValue) SetError() error { return f.err }

func (f *fieldValue) String() string {
	if f.v.Kind() == reflect.Float64 {
		return strconv.FormatFloat(f.v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(f.v.Interface())
}

func (f *fieldValue) Type() string { return f.v.Kind().String() }

// Set parses s into the field.
func (f *fieldValue) Set(s string) error {
	f.err = nil
	return f.set(s)
}

func (f *fieldValue) set(s string) error {
	if s == AutoWord && isNumber(f.v.Type()) {
		f.v.Set(f.def)
		return nil
	}
	switch f.v.Kind() {
	case reflect.String:
		f.v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", s)
		}
		f.v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", s)
		}
		if err := method.CheckSign(f.policy, float64(n), true); err != nil {
			f.err = fmt.Errorf("--%s %w", f.name, err)
			return f.err
		}
		f.v.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("want a number, got %q", s)
		}
		if err := method.CheckSign(f.policy, x, false); err != nil {
			f.err = fmt.Errorf("--%s %w", f.name, err)
			return f.err
		}
		f.v.SetFloat(x)
	}
	return nil
}
