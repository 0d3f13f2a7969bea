package method_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// centralSettings are a central method's settings for the tests: N
// defaults to 3, Records to the table's record count.
type centralSettings struct {
	N       int `json:"n,omitempty"`
	Records int `json:"-"`
}

func (s *centralSettings) SetDefaults() {
	if s.N == 0 {
		s.N = 3
	}
}

func (s *centralSettings) Validate() error {
	if s.N < 0 {
		return method.Fieldf("n", "must not be negative, got %d", s.N)
	}
	return nil
}

func (s *centralSettings) DefaultRecords(n int) { s.Records = n }

// centralSpec runs in one place and reports what it was given in the
// outcome's Detail.
func centralSpec(ran *bool) method.Spec {
	return method.Spec{
		Name: "central-test", Split: method.Central,
		NewSettings: func() method.Settings { return new(centralSettings) },
		Run: func(_ context.Context, st method.Settings, l method.Local) (*method.Outcome, error) {
			*ran = true
			return &method.Outcome{Detail: l, Summary: strings.Repeat("x", st.(*centralSettings).N)}, nil
		},
	}
}

func TestRunCentralFillsDefaultsValidatesOnceThenRuns(t *testing.T) {
	tab := &data.Table{Rows: make([][]float64, 7)}
	ran := false
	st := &centralSettings{}
	out, err := method.RunCentral(context.Background(), centralSpec(&ran), st, method.Local{Name: "o", Table: tab})
	if err != nil {
		t.Fatal(err)
	}
	l := out.Detail.(method.Local)
	if !ran || out.Summary != "xxx" || st.Records != 7 {
		t.Fatalf("ran %v, summary %q, records %d: want the defaults (n = 3) and the table's 7 records", ran, out.Summary, st.Records)
	}
	if l.Source == nil || !l.Source.IsSecure() || l.Name != "o" || l.Table != tab {
		t.Fatalf("the run got %+v: want the caller's name and table and a secure source", l)
	}
}

func TestRunCentralRefuses(t *testing.T) {
	session := func(ran *bool) method.Spec {
		s := centralSpec(ran)
		s.Run = nil
		return s
	}
	cases := []struct {
		name     string
		spec     func(ran *bool) method.Spec
		st       *centralSettings
		want     string
		settings bool // the error is a method.SettingsError naming the key
	}{
		{"bad settings", centralSpec, &centralSettings{N: -1}, "n must not be negative, got -1", true},
		{"a session method", session, &centralSettings{}, "runs as a session", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := false
			_, err := method.RunCentral(context.Background(), c.spec(&ran), c.st, method.Local{Table: &data.Table{}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			var se method.SettingsError
			var fe method.FieldError
			if c.settings && (!errors.As(err, &se) || !errors.As(err, &fe) || fe.Key != "n") {
				t.Fatalf("%v is not a settings error about key n", err)
			}
			if ran {
				t.Fatal("the method ran despite the error")
			}
		})
	}
}

// Register accepts a spec that runs either as sessions or in one place,
// and a central spec only with the central split.
func TestRegisterRefusesAmbiguousSpecs(t *testing.T) {
	open := func(method.Settings, method.Open) (method.Session, error) { return nil, nil }
	decode := func([]byte) (method.Session, error) { return nil, nil }
	both := centralSpec(new(bool))
	both.Open, both.Decode, both.Coordinator = open, decode, "c"
	neither := centralSpec(new(bool))
	neither.Run = nil
	rows := centralSpec(new(bool))
	rows.Split = method.Rows
	cases := []struct {
		name string
		spec method.Spec
		want string
	}{
		{"run and sessions", both, "incomplete"},
		{"neither run nor sessions", neither, "incomplete"},
		{"run without the central split", rows, "central"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Fatalf("panic %q, want one saying %q", msg, c.want)
				}
			}()
			method.Register(c.spec)
		})
	}
}

// A demo's schema settings are the JSON object the demos wrote out by
// hand before: the schema file first, the fields after it, byte for byte.
func TestDemoSchemaSettings(t *testing.T) {
	in := method.DemoInput{Dataset: "adult"}
	got := string(in.SchemaSettings(`"epsilon": 1, "delta": 1e-05`))
	if want := `{"schema": "adult.schema.json", "epsilon": 1, "delta": 1e-05}`; got != want {
		t.Errorf("settings %s, want %s", got, want)
	}
}

// LocalOwners offers owner-1 to owner-m in order, each holding its table;
// an owner added with no table holds none (it brings statistics).
func TestLocalOwners(t *testing.T) {
	a, b := &data.Table{}, &data.Table{}
	lo := method.LocalOwners([]*data.Table{a, b}, nil)
	lo.AddOwner("owner-3", nil)
	if got := lo.Members[method.RoleOwner]; !slices.Equal(got, []string{"owner-1", "owner-2", "owner-3"}) {
		t.Errorf("owners %v", got)
	}
	if lo.Data["owner-1"] != a || lo.Data["owner-2"] != b || len(lo.Data) != 2 {
		t.Errorf("data %v", lo.Data)
	}
}
