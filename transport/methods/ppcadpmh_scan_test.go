package methods

import (
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/method"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/transport"
)

// A ppca-dp-mh owner whose dataset is a CSV file brings the statistics
// of its rows, scanned from the file, and no table: their moments are
// bit for bit those of the table the file reads into (so its role, and
// the session's output for a seed, are the same; the networked test
// TestNetworkMatchesOneProcess checks the bytes between processes). A
// session with paper_latent, whose owners project their real rows, still
// reads the table; an owner whose schema is not the session's is refused
// before its file is read.
func TestPPCAOwnerScansStatistics(t *testing.T) {
	adult, csv := adultFile(t, data.WriteCSV)
	other := adult.Schema
	other.Attributes = other.Attributes[1:] // a copy of the slice header: adult's schema is untouched
	f := writeConsortium(t, map[string]string{"adult.csv": csv, "adult.json": mustJSON(t, adult.Schema), "other.json": mustJSON(t, other)},
		[]consortium.Member{
			{Name: "curator", Role: "curator", Address: "h:1"},
			owner("owner-1", "h:2", "adult.csv", "adult.json", true),
			// Its file does not exist: a refusal that names the schema
			// was made before any read.
			owner("owner-2", "h:3", "missing.csv", "other.json", false),
		})
	enc, err := data.NewEncoder(adult.Schema, data.EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ppca.TableMoments(adult, enc, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, member, settings string
		scanned                bool
		err                    string
	}{
		{"statistics suffice", "owner-1", `{"schema": "adult.json", "epsilon": 1}`, true, ""},
		{"paper latent codes need the rows", "owner-1", `{"schema": "adult.json", "epsilon": 1, "paper_latent": true}`, false, ""},
		{"another schema", "owner-2", `{"schema": "adult.json", "epsilon": 1}`, false, "owner-2's schema differs from the session's"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sess := curatorSession(t, ppcaspec.Spec, f, c.settings)
			owner, _ := f.Member(c.member)
			var l method.Local
			err = readMemberData(transport.JoinInput{Consortium: f, Self: owner}, sess, &l)
			if testenv.ErrorCase(t, err, c.err) {
				return
			}
			if !c.scanned {
				if l.Table == nil || l.Statistics != nil || l.Table.Len() != adult.Len() {
					t.Fatalf("want the table of %d rows and no statistics, got table %v, statistics %v", adult.Len(), l.Table != nil, l.Statistics != nil)
				}
				return
			}
			if l.Table != nil || l.Statistics == nil {
				t.Fatalf("want statistics and no table, got table %v, statistics %v", l.Table != nil, l.Statistics != nil)
			}
			if got := l.Statistics.Moments; got.N != adult.Len() || !got.Equal(want) {
				t.Fatalf("scanned moments of %d rows differ from the table's (%d rows)", got.N, want.N)
			}
		})
	}
}
