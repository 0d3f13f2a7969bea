package datasets

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
)

//go:embed files/*.gz
var embedded embed.FS

// Info describes a dataset.
type Info struct {
	Name        string
	Description string
	License     string
	Source      string
	// Label is the attribute the papers predict ("" if none).
	Label string
	// Rows and Columns are the shape of the loaded table; Columns counts
	// attributes, not the ID column.
	Rows, Columns int
	// Embedded says the data ship inside the binary.
	Embedded bool
}

// EnvDataDir names the environment variable that points at a directory of
// external datasets (one sub-directory per dataset).
const EnvDataDir = "DPPUB_DATA"

// spec says how to read one dataset.
type spec struct {
	info   Info
	schema func() data.Schema
	// files are read in order and concatenated; embedded datasets store
	// each as files/<name>.gz.
	files []string
	opts  data.ReadOptions
}

var registry = []spec{adultSpec, big5Spec, musk2Spec, nltcsSpec, shuttleSpec, wdbcSpec}

func lookup(name string) (spec, error) {
	for _, s := range registry {
		if s.info.Name == name {
			return s, nil
		}
	}
	return spec{}, fmt.Errorf("datasets: unknown dataset %q (known: %s)", name, strings.Join(names(), ", "))
}

func names() []string {
	out := make([]string, len(registry))
	for i, s := range registry {
		out[i] = s.info.Name
	}
	return out
}

// List describes every known dataset, sorted by name.
func List() []Info {
	out := make([]Info, len(registry))
	for i, s := range registry {
		out[i] = s.info
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Schema returns the declared schema of a dataset.
func Schema(name string) (data.Schema, error) {
	s, err := lookup(name)
	if err != nil {
		return data.Schema{}, err
	}
	return s.schema(), nil
}

// Load returns a dataset: an embedded one from the binary, an external one
// from $DPPUB_DATA/<name> or else <module root>/../shared/data/<name>.
func Load(name string) (*data.Table, error) {
	t, _, err := load(name)
	return t, err
}

func load(name string) (*data.Table, data.ReadStats, error) {
	s, err := lookup(name)
	if err != nil {
		return nil, data.ReadStats{}, err
	}
	if s.info.Embedded {
		return s.read(openEmbedded)
	}
	var looked []string
	for _, dir := range externalDirs(name) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return s.read(openIn(dir))
		}
		looked = append(looked, dir)
	}
	return nil, data.ReadStats{}, fmt.Errorf("datasets: %q is not embedded and was not found (looked in %s; set %s to a directory holding %s/)",
		name, strings.Join(looked, ", "), EnvDataDir, name)
}

// externalDirs lists where Load looks for an external dataset.
func externalDirs(name string) []string {
	var dirs []string
	if env := os.Getenv(EnvDataDir); env != "" {
		dirs = append(dirs, filepath.Join(env, name))
	}
	if wd, err := os.Getwd(); err == nil {
		if root, err := fsutil.FindUp(wd, "go.mod"); err == nil {
			dirs = append(dirs, filepath.Join(filepath.Dir(root), "shared", "data", name))
		}
	}
	return dirs
}

// LoadFrom reads a dataset's original files from dir (for instance the
// UCI adult.data and adult.test), each optionally gzip-compressed with a
// ".gz" suffix. It works for embedded datasets too.
func LoadFrom(name, dir string) (*data.Table, error) {
	s, err := lookup(name)
	if err != nil {
		return nil, err
	}
	t, _, err := s.read(openIn(dir))
	return t, err
}

// opener opens one of a dataset's files and names it for errors.
type opener func(file string) (fs.File, string, error)

func openEmbedded(file string) (fs.File, string, error) {
	path := "files/" + file + ".gz"
	f, err := embedded.Open(path)
	return f, "embedded " + path, err
}

func openIn(dir string) opener {
	return func(file string) (fs.File, string, error) {
		path := filepath.Join(dir, file)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			if gz, gzErr := os.Open(path + ".gz"); gzErr == nil {
				return gz, path + ".gz", nil
			}
		}
		return f, path, err
	}
}

func (s spec) read(open opener) (*data.Table, data.ReadStats, error) {
	schema := s.schema()
	parts := make([]*data.Table, len(s.files))
	var total data.ReadStats
	for i, file := range s.files {
		t, st, err := s.readFile(open, file, schema)
		if err != nil {
			return nil, total, err
		}
		parts[i] = t
		total = addStats(total, st)
	}
	t, err := data.Concat(parts...)
	if err != nil {
		return nil, total, fmt.Errorf("datasets: %s: %w", s.info.Name, err)
	}
	return t, total, nil
}

func (s spec) readFile(open opener, file string, schema data.Schema) (*data.Table, data.ReadStats, error) {
	f, name, err := open(file)
	if err != nil {
		return nil, data.ReadStats{}, fmt.Errorf("datasets: %s: %w", s.info.Name, err)
	}
	defer f.Close()
	opts := s.opts
	opts.Name = name
	t, st, err := data.ReadCSV(f, schema, opts) // gunzips transparently
	if err != nil {
		return nil, st, fmt.Errorf("datasets: %s: %w", s.info.Name, err)
	}
	return t, st, nil
}

func addStats(a, b data.ReadStats) data.ReadStats {
	return data.ReadStats{
		Rows:           a.Rows + b.Rows,
		DroppedMissing: a.DroppedMissing + b.DroppedMissing,
		Clamped:        a.Clamped + b.Clamped,
		Ignored:        max(a.Ignored, b.Ignored),
		SkippedLines:   a.SkippedLines + b.SkippedLines,
		MappedToOther:  a.MappedToOther + b.MappedToOther,
	}
}
