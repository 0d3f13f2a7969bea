package consortium

import (
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/dp"
)

const fileJSON = `{
  "name": "clinic-net",
  "members": [
    {"name": "curator", "role": "curator", "address": "127.0.0.1:7400"},
    {"name": "hospital-a", "role": "owner", "address": "127.0.0.1:7401",
     "dataset": {"path": "a.csv", "schema": "s.json"}, "budget": {"epsilon": 2, "delta": 1e-6}}
  ],
  "limits": {"step_timeout": "5s", "max_message_bytes": 1048576}
}`

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "consortium.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefaultsAndPaths(t *testing.T) {
	path := writeConfig(t, fileJSON)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Limits.StepTimeout.Duration != 5*time.Second || f.Limits.MaxMessageBytes != 1<<20 ||
		f.Limits.SessionTimeout.Duration != DefaultSessionTimeout || f.Limits.PingInterval.Duration != DefaultPingInterval {
		t.Fatalf("limits %+v", f.Limits)
	}
	m, err := f.Member("hospital-a")
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Budget.Guarantee()
	if err != nil || g != dp.Approx(2, 1e-6) {
		t.Fatalf("budget %v, %v", g, err)
	}
	dir := filepath.Dir(path)
	if got := f.Path(m.Dataset.Path); got != filepath.Join(dir, "a.csv") {
		t.Fatalf("dataset path %q", got)
	}
	if got := f.LedgerPath(m); got != filepath.Join(dir, "hospital-a.budget.db") {
		t.Fatalf("ledger path %q", got)
	}
	if m.DatasetName() != "hospital-a" || len(f.WithRole("owner")) != 1 {
		t.Fatalf("dataset name %q, owners %v", m.DatasetName(), f.WithRole("owner"))
	}
}

func TestValidateRefuses(t *testing.T) {
	for name, bad := range map[string]string{
		"bad name":        strings.Replace(fileJSON, `"hospital-a"`, `"Hospital A"`, 1),
		"duplicate":       strings.Replace(fileJSON, `"hospital-a"`, `"curator"`, 1),
		"reserved ca":     strings.Replace(fileJSON, `"hospital-a"`, `"ca"`, 1),
		"no port":         strings.Replace(fileJSON, `127.0.0.1:7401`, `localhost`, 1),
		"budget":          strings.Replace(fileJSON, `"epsilon": 2`, `"epsilon": -2`, 1),
		"rho and epsilon": strings.Replace(fileJSON, `"epsilon": 2`, `"epsilon": 2, "rho": 1`, 1),
		"ping too long":   strings.Replace(fileJSON, `"step_timeout": "5s"`, `"step_timeout": "5s", "ping_interval": "10s"`, 1),
		"tiny messages":   strings.Replace(fileJSON, `1048576`, `10`, 1),
		"duration":        strings.Replace(fileJSON, `"5s"`, `5`, 1),
		"consortium name": strings.Replace(fileJSON, `"name": "clinic-net"`, `"name": "clinic net"`, 1),
	} {
		if _, err := Parse([]byte(bad), "/tmp"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A member's dataset files are checked where it starts: each missing or
// unreadable one is named, by its key in the file and its path.
func TestCheckDataset(t *testing.T) {
	path := writeConfig(t, fileJSON)
	dir := filepath.Dir(path)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := f.Member("hospital-a")
	curator, _ := f.Member("curator")
	for _, c := range []struct {
		name  string
		files map[string]string // written before the check; "" a directory
		want  string            // "" for no error
	}{
		{"neither", nil, `member "hospital-a" cannot read the file its dataset's "schema" names: open ` + filepath.Join(dir, "s.json")},
		{"no data", map[string]string{"s.json": "{}"}, `its dataset's "path" names: open ` + filepath.Join(dir, "a.csv") + ": no such file"},
		{"data a directory", map[string]string{"a.csv": ""}, filepath.Join(dir, "a.csv") + " is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for name, body := range c.files {
				var err error
				if body == "" {
					err = os.Mkdir(filepath.Join(dir, name), 0o755)
				} else {
					err = os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := f.CheckDataset(owner); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	if err := os.Remove(filepath.Join(dir, "a.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.CheckDataset(owner); err != nil {
		t.Errorf("both files present: %v", err)
	}
	if err := f.CheckDataset(curator); err != nil {
		t.Errorf("a member without a dataset: %v", err)
	}
}

func TestIdentityRoundTrip(t *testing.T) {
	id := Identity{Consortium: "clinic-net", Role: "owner", Name: "hospital-a"}
	if got := id.String(); got != "dppub://clinic-net/owner/hospital-a" {
		t.Fatalf("URI %q", got)
	}
	back, err := ParseIdentity(id.URI())
	if err != nil || back != id {
		t.Fatalf("round trip %v, %v", back, err)
	}
	for _, s := range []string{"https://clinic-net/owner/a", "dppub://clinic-net/owner", "dppub://clinic-net/owner/a/b",
		"dppub://clinic-net:80/owner/a", "dppub://Clinic/owner/a", "dppub://c/owner/a?x=1"} {
		u, _ := url.Parse(s)
		if _, err := ParseIdentity(u); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
}

func TestInitIssuesVerifiableCertificates(t *testing.T) {
	path := writeConfig(t, fileJSON)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Init(f, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.CreatedCA || len(res.Issued) != 2 {
		t.Fatalf("init result %+v", res)
	}
	for _, m := range f.Members {
		c, err := LoadCredentials(f, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Identity != f.Identity(m) {
			t.Fatalf("identity %v", c.Identity)
		}
		fi, err := os.Stat(f.KeyFile(m.Name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %v, %v", fi.Mode(), err)
		}
	}
	// A second init keeps everything.
	res, err = Init(f, InitOptions{})
	if err != nil || res.CreatedCA || len(res.Kept) != 2 {
		t.Fatalf("second init %+v, %v", res, err)
	}
	// A role change is caught: the kept certificate names the old role.
	f.Members[1].Role = "curator"
	if _, err := Init(f, InitOptions{}); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("role change not caught: %v", err)
	}
	if _, err := LoadCredentials(f, "hospital-a"); err == nil {
		t.Fatal("credentials of a changed role loaded")
	}
}

// The CA's name constraint: even its own key cannot certify a member of
// another consortium that a verifier would accept.
func TestCANameConstraint(t *testing.T) {
	f, err := Load(writeConfig(t, fileJSON))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Init(f, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	ca, key, err := loadCA(f)
	if err != nil {
		t.Fatal(err)
	}
	other := *f
	other.Name = "other-net"
	other.Certs = "other-certs"
	m := Member{Name: "intruder", Role: "curator", Address: "x:1"}
	if err := os.MkdirAll(other.Path(other.Certs), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := issue(&other, m, ca, key, InitOptions{Validity: time.Hour * 24, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(other.CertFile("intruder"))
	blk, _ := pem.Decode(b)
	cert, _ := x509.ParseCertificate(blk.Bytes)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Fatal("a certificate outside the CA's consortium verified")
	}
}
