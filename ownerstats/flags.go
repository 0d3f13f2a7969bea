package ownerstats

import (
	"fmt"
	"strconv"
	"strings"
)

// FlagSet is what ConfigFlags.Register needs of a flag set: the standard
// library's *flag.FlagSet (dppub-beam) and pflag's (the dppub commands)
// both have these methods, so the two commands share one definition of
// the flags that choose an owner's domain and cannot drift apart.
type FlagSet interface {
	IntVar(p *int, name string, value int, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	StringVar(p *string, name string, value string, usage string)
}

// ConfigFlags are the command-line flags that choose a Config's marginal
// domain: --bins, --bins-for, --fine and --grid.
type ConfigFlags struct {
	Bins    int
	BinsFor string
	Fine    bool
	Grid    int
}

// Register adds the flags to fs.
func (f *ConfigFlags) Register(fs FlagSet) {
	fs.IntVar(&f.Bins, "bins", 0, "bins per numeric attribute of the marginal domain (0: the engine's default, 16); with --fine the session's bins")
	fs.StringVar(&f.BinsFor, "bins-for", "", "bins for named numeric attributes, NAME=N,NAME=N (overriding --bins; with --fine the session's bins_for)")
	fs.BoolVar(&f.Fine, "fine", false, "count the marginals over fine cells (ownerstats.Config.Fine), the file a synthesize-rows owner needs; --bins must be the session's bins")
	fs.IntVar(&f.Grid, "grid", 0, "with --fine: cells of the session's public grid (0: the engine's default, 256)")
}

// Apply sets c's domain from the flags, refusing a value no session can
// use before any record is read.
func (f *ConfigFlags) Apply(c *Config) error {
	switch {
	case f.Bins < 0:
		return fmt.Errorf("ownerstats: --bins must be positive, got %d", f.Bins)
	case f.Grid != 0 && !f.Fine:
		return fmt.Errorf("ownerstats: --grid %d is for --fine statistics (the equal-width domain has no grid)", f.Grid)
	case f.Grid < 0 || f.Grid == 1:
		return fmt.Errorf("ownerstats: --grid must be at least 2 cells, got %d", f.Grid)
	}
	binsFor, err := ParseBinsFor(f.BinsFor)
	if err != nil {
		return err
	}
	c.Bins, c.BinsFor, c.Fine, c.Grid = f.Bins, binsFor, f.Fine, f.Grid
	return nil
}

// ParseBinsFor reads NAME=N,NAME=N (nil for ""). Whether each name is a
// numeric attribute of the schema is domain.New's to check.
func ParseBinsFor(s string) (map[string]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]int{}
	for item := range strings.SplitSeq(s, ",") {
		name, v, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case !ok || name == "":
			return nil, fmt.Errorf("ownerstats: --bins-for %q: want NAME=N, comma-separated", item)
		case err != nil || n < 1:
			return nil, fmt.Errorf("ownerstats: --bins-for %q: the bins must be a positive integer", item)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("ownerstats: --bins-for names %q twice", name)
		}
		out[name] = n
	}
	return out, nil
}
