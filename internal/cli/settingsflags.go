package cli

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// bindSettings registers one flag per field of a method's settings (a
// pointer to its struct, defaults filled): the flag is the field's JSON
// key with '-' for '_', its default the field's value, its help the
// field's `help` tag. Fields of embedded structs are flattened; fields of
// kinds a flag cannot hold (maps, structs, lists of structs) are left to
// --settings FILE. The flags write straight into the struct, so the
// settings are validated once, by the method.
func bindSettings(fs *pflag.FlagSet, settings any) {
	v := reflect.ValueOf(settings).Elem()
	bindStruct(fs, v)
}

func bindStruct(fs *pflag.FlagSet, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			bindStruct(fs, v.Field(i))
			continue
		}
		name := flagName(f)
		if name == "" || fs.Lookup(name) != nil || !bindable(f.Type) {
			continue
		}
		help := f.Tag.Get("help")
		if help == "" {
			help = "the method's " + strings.ReplaceAll(name, "-", " ") + " setting"
		}
		fl := fs.VarPF(&fieldValue{v: v.Field(i)}, name, "", help)
		if f.Type.Kind() == reflect.Bool {
			fl.NoOptDefVal = "true"
		}
	}
}

// flagName is the field's JSON key as a flag name ("" for none, and for
// fields tagged flag:"-", which a one-process run sets itself).
func flagName(f reflect.StructField) string {
	if f.Tag.Get("flag") == "-" {
		return ""
	}
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if key == "-" || key == "" {
		return ""
	}
	return strings.ReplaceAll(key, "_", "-")
}

func bindable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	}
	return false
}

// fieldValue is a flag over one settings field.
type fieldValue struct{ v reflect.Value }

func (f *fieldValue) String() string {
	switch f.v.Kind() {
	case reflect.Slice:
		var parts []string
		for i := range f.v.Len() {
			parts = append(parts, f.v.Index(i).String())
		}
		return strings.Join(parts, ",")
	case reflect.Float64:
		return strconv.FormatFloat(f.v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(f.v.Interface())
}

func (f *fieldValue) Type() string {
	if f.v.Kind() == reflect.Slice {
		return "strings"
	}
	return f.v.Kind().String()
}

// Set parses s into the field; a list flag appends (repeat it or give a
// comma-separated list).
func (f *fieldValue) Set(s string) error {
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
		f.v.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("want a number, got %q", s)
		}
		f.v.SetFloat(x)
	case reflect.Slice:
		for _, part := range strings.Split(s, ",") {
			f.v.Set(reflect.Append(f.v, reflect.ValueOf(part).Convert(f.v.Type().Elem())))
		}
	}
	return nil
}
