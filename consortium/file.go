package consortium

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/dppub/dppub/dp"
)

// File is a consortium file.
type File struct {
	// Name is the consortium's name, part of every member's identity.
	Name string `json:"name"`
	// Certs is the directory of the CA and member certificates, relative to
	// the file (default "certs").
	Certs   string   `json:"certs,omitempty"`
	Members []Member `json:"members"`
	Limits  Limits   `json:"limits"`
	// Methods holds default settings per method name (e.g. "ppca-dp-mh"),
	// read by `dppub run METHOD`.
	Methods map[string]json.RawMessage `json:"methods,omitempty"`

	dir string
}

// Member is one organisation taking part.
type Member struct {
	Name string `json:"name"`
	// Role is what the member does in the methods (e.g. "owner",
	// "curator"); it is written into the member's certificate.
	Role string `json:"role"`
	// Address is host:port where the member listens and peers dial it.
	Address string `json:"address"`
	// Dataset, Budget and Ledger are set for members holding data.
	Dataset *Dataset `json:"dataset,omitempty"`
	// Budget is the lifetime privacy budget of the dataset.
	Budget *Budget `json:"budget,omitempty"`
	// Ledger is the on-disk budget ledger (default <name>.budget.db beside
	// the file).
	Ledger string `json:"ledger,omitempty"`
	// AllowUnsound lets sessions use options whose output is not fully
	// covered by DP or whose guarantee is weaker than charged (e.g. the
	// paper calibration or latent codes of PPCA-DP-MH). Off by default.
	AllowUnsound bool `json:"allow_unsound,omitempty"`
	// Neighbours, when set, is the neighbouring relation the member's
	// lifetime budget is stated under: it joins only sessions under that
	// relation (a ρ under add/remove covers a replaced record at 4ρ
	// only). Empty: the relation the session states, charged as stated.
	Neighbours dp.Neighbours `json:"neighbours,omitempty"`
	// PublishingLedger is, for a coordinating member, the directory of the
	// shared publishing ledger (see `dppub ledger`) in which it records
	// every session it runs: published (with the digests of the files) or
	// aborted (with the reason), and each participant's receipted spend.
	// Relative to the file; empty: no record.
	PublishingLedger string `json:"publishing_ledger,omitempty"`
}

// Dataset is a member's local data.
type Dataset struct {
	// Name keys the dataset in the budget ledger (default: the member name).
	Name string `json:"name,omitempty"`
	// Path is a CSV/TSV file with a header row (or a Parquet file, named
	// .parquet), relative to the file.
	Path string `json:"path,omitempty"`
	// Statistics, instead of Path, is a statistics file the owner computed
	// elsewhere with the same encoding (the Beam pipeline in beam/, see
	// package ownerstats), for methods that need only statistics.
	Statistics string `json:"statistics,omitempty"`
	// Schema is the schema JSON of the data, relative to the file.
	Schema string `json:"schema"`
}

// Budget is a lifetime privacy budget: ε (with δ for (ε, δ)-DP) or ρ.
type Budget struct {
	Epsilon float64 `json:"epsilon,omitempty"`
	Delta   float64 `json:"delta,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
}

// Guarantee converts the budget: ρ gives ρ-zCDP, ε with δ > 0 gives
// (ε, δ)-DP, ε alone gives ε-DP.
func (b Budget) Guarantee() (dp.Guarantee, error) {
	var g dp.Guarantee
	switch {
	case b.Rho != 0 && (b.Epsilon != 0 || b.Delta != 0):
		return g, fmt.Errorf("consortium: budget gives both rho=%v and epsilon=%v/delta=%v; give one", b.Rho, b.Epsilon, b.Delta)
	case b.Rho != 0:
		g = dp.Concentrated(b.Rho)
	case b.Delta != 0:
		g = dp.Approx(b.Epsilon, b.Delta)
	default:
		g = dp.Pure(b.Epsilon)
	}
	if err := g.Validate(); err != nil {
		return g, fmt.Errorf("consortium: budget: %w", err)
	}
	return g, nil
}

// Limits bound what a member accepts and how long it waits.
type Limits struct {
	// MaxMessageBytes bounds one encoded envelope (default 256 MiB).
	MaxMessageBytes int64 `json:"max_message_bytes,omitempty"`
	// StepTimeout bounds one step: a member handling one message, or the
	// whole session making no progress (default 60s). Transient delivery
	// failures (a member restarting) are retried this long; permanent ones
	// (a refusal, a certificate from another CA) fail at once.
	StepTimeout Duration `json:"step_timeout,omitempty"`
	// SessionTimeout bounds a whole session (default 30m).
	SessionTimeout Duration `json:"session_timeout,omitempty"`
	// RPCTimeout bounds one delivery attempt (default 2m).
	RPCTimeout Duration `json:"rpc_timeout,omitempty"`
	// PingInterval is how often the coordinator polls members (default 1s).
	PingInterval Duration `json:"ping_interval,omitempty"`
	// UnreachableAfter is how long a member may fail to answer before the
	// coordinator aborts the session (default 5s); a participant that has
	// heard nothing from the coordinator for this long plus one
	// PingInterval aborts its side and releases its budget reservation.
	UnreachableAfter Duration `json:"unreachable_after,omitempty"`
}

// Default limits.
const (
	DefaultMaxMessageBytes  = 256 << 20
	DefaultStepTimeout      = 60 * time.Second
	DefaultSessionTimeout   = 30 * time.Minute
	DefaultRPCTimeout       = 2 * time.Minute
	DefaultPingInterval     = time.Second
	DefaultUnreachableAfter = 5 * time.Second
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	var l Limits
	l.defaults()
	return l
}

func (l *Limits) defaults() {
	setDefault(&l.StepTimeout, DefaultStepTimeout)
	setDefault(&l.SessionTimeout, DefaultSessionTimeout)
	setDefault(&l.RPCTimeout, DefaultRPCTimeout)
	setDefault(&l.PingInterval, DefaultPingInterval)
	setDefault(&l.UnreachableAfter, DefaultUnreachableAfter)
	if l.MaxMessageBytes == 0 {
		l.MaxMessageBytes = DefaultMaxMessageBytes
	}
}

func setDefault(d *Duration, v time.Duration) {
	if d.Duration == 0 {
		d.Duration = v
	}
}

// Validate checks the limits after defaults.
func (l Limits) Validate() error {
	if l.MaxMessageBytes < 1<<10 || l.MaxMessageBytes > math.MaxInt32 {
		return fmt.Errorf("consortium: max_message_bytes %d outside [1 KiB, 2 GiB)", l.MaxMessageBytes)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"step_timeout", l.StepTimeout.Duration}, {"session_timeout", l.SessionTimeout.Duration},
		{"rpc_timeout", l.RPCTimeout.Duration}, {"ping_interval", l.PingInterval.Duration},
		{"unreachable_after", l.UnreachableAfter.Duration}} {
		if d.v <= 0 {
			return fmt.Errorf("consortium: %s %v must be positive", d.name, d.v)
		}
	}
	if l.PingInterval.Duration >= l.UnreachableAfter.Duration || l.PingInterval.Duration >= l.StepTimeout.Duration {
		return fmt.Errorf("consortium: ping_interval %v must be shorter than unreachable_after %v and step_timeout %v",
			l.PingInterval, l.UnreachableAfter, l.StepTimeout)
	}
	return nil
}

// Duration is a time.Duration written as a string such as "30s".
type Duration struct{ time.Duration }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a string such as "1m30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("consortium: duration %s is not a string like \"30s\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("consortium: duration %q: %w", s, err)
	}
	d.Duration = v
	return nil
}

// namePattern restricts consortium, role and member names so that they
// fit a URI path segment and a file name unchanged.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// CheckName reports whether s can name a consortium, role or member.
func CheckName(kind, s string) error {
	if !namePattern.MatchString(s) || strings.Contains(s, "..") {
		return fmt.Errorf("consortium: %s name %q must be 1-63 characters of a-z, 0-9, '.', '_', '-', starting with a letter or digit", kind, s)
	}
	return nil
}

// Parse reads a consortium file's bytes; dir is the directory relative
// paths in it are resolved against.
func Parse(b []byte, dir string) (*File, error) {
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("consortium: %w", err)
	}
	f.dir = dir
	if f.Certs == "" {
		f.Certs = "certs"
	}
	f.Limits.defaults()
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Load reads and validates a consortium file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("consortium: %w", err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("consortium: %w", err)
	}
	f, err := Parse(b, abs)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return f, nil
}

// Validate checks names, roles, addresses, datasets and budgets.
func (f *File) Validate() error {
	if err := CheckName("consortium", f.Name); err != nil {
		return err
	}
	if len(f.Members) == 0 {
		return fmt.Errorf("consortium: %q has no members", f.Name)
	}
	seen := map[string]bool{}
	for _, m := range f.Members {
		if err := m.validate(); err != nil {
			return err
		}
		if seen[m.Name] {
			return fmt.Errorf("consortium: member %q appears twice", m.Name)
		}
		seen[m.Name] = true
	}
	return f.Limits.Validate()
}

func (m Member) validate() error {
	if err := CheckName("member", m.Name); err != nil {
		return err
	}
	if m.Name == "ca" {
		return fmt.Errorf("consortium: member name \"ca\" is reserved for the certificate authority")
	}
	if err := CheckName("role", m.Role); err != nil {
		return fmt.Errorf("%w (member %q)", err, m.Name)
	}
	if m.Address == "" || !strings.Contains(m.Address, ":") {
		return fmt.Errorf("consortium: member %q has address %q, want host:port", m.Name, m.Address)
	}
	if err := m.Neighbours.Check(); err != nil {
		return fmt.Errorf("consortium: member %q: %w", m.Name, err)
	}
	if (m.Dataset == nil) != (m.Budget == nil) {
		return fmt.Errorf("consortium: member %q must give both a dataset and a lifetime budget, or neither", m.Name)
	}
	if m.Dataset != nil {
		if (m.Dataset.Path == "") == (m.Dataset.Statistics == "") || m.Dataset.Schema == "" {
			return fmt.Errorf("consortium: member %q's dataset needs a schema and a path or a statistics file (one of them)", m.Name)
		}
		if m.Dataset.Name != "" {
			if err := CheckName("dataset", m.Dataset.Name); err != nil {
				return fmt.Errorf("%w (member %q)", err, m.Name)
			}
		}
		if _, err := m.Budget.Guarantee(); err != nil {
			return fmt.Errorf("%w (member %q)", err, m.Name)
		}
	}
	return nil
}

// Dir is the directory relative paths are resolved against.
func (f *File) Dir() string { return f.dir }

// Path resolves p against the file's directory.
func (f *File) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(f.dir, p)
}

// Member returns the member called name.
func (f *File) Member(name string) (Member, error) {
	for _, m := range f.Members {
		if m.Name == name {
			return m, nil
		}
	}
	return Member{}, fmt.Errorf("consortium: %q has no member %q", f.Name, name)
}

// WithRole lists the members with a role, in file order.
func (f *File) WithRole(role string) []Member {
	var out []Member
	for _, m := range f.Members {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

// DatasetName is the ledger key of m's dataset.
func (m Member) DatasetName() string {
	if m.Dataset != nil && m.Dataset.Name != "" {
		return m.Dataset.Name
	}
	return m.Name
}

// CheckDataset checks that the files m's sessions will read exist and
// are readable regular files: its dataset's schema and its data (or
// statistics) file. A member serving without them would accept sessions
// and fail in each one; it should not start.
func (f *File) CheckDataset(m Member) error {
	if m.Dataset == nil {
		return nil
	}
	for _, c := range []struct{ key, path string }{
		{"schema", m.Dataset.Schema}, {"path", m.Dataset.Path}, {"statistics", m.Dataset.Statistics},
	} {
		if c.path == "" {
			continue
		}
		path := f.Path(c.path)
		file, err := os.Open(path)
		if err == nil {
			var info os.FileInfo
			if info, err = file.Stat(); err == nil && !info.Mode().IsRegular() {
				err = fmt.Errorf("%s is not a regular file", path)
			}
			file.Close()
		}
		if err != nil {
			return fmt.Errorf("consortium: member %q cannot read the file its dataset's %q names: %w", m.Name, c.key, err)
		}
	}
	return nil
}

// LedgerPath is where m's budget ledger lives.
func (f *File) LedgerPath(m Member) string {
	if m.Ledger != "" {
		return f.Path(m.Ledger)
	}
	return filepath.Join(f.dir, m.Name+".budget.db")
}

// Identity is m's identity in the consortium.
func (f *File) Identity(m Member) Identity {
	return Identity{Consortium: f.Name, Role: m.Role, Name: m.Name}
}
