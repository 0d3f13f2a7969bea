package kit

import "github.com/spf13/pflag"

// FlagValue is the value of fs's flag name ("" when it has none).
func FlagValue(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// FlagValues reads a string or a repeated flag.
func FlagValues(fs *pflag.FlagSet, name string) []string {
	f := fs.Lookup(name)
	if f == nil {
		return nil
	}
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
}

// OrDefault is the flag's value, or def when it is empty.
func OrDefault(fs *pflag.FlagSet, name, def string) string {
	if v := FlagValue(fs, name); v != "" {
		return v
	}
	return def
}
