package roles

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/protocol"
)

// failedAsWanted fails t unless err is what the case wants: an error
// saying want, or none when want is empty; it reports whether the case
// ends there (an error was wanted).
func failedAsWanted(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want an error saying %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

// TestCutsMessage: edges survive the wire; edges that are not finite or
// not increasing are refused on arrival.
func TestCutsMessage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edges map[int][]float64
		err   string
	}{
		{name: "two attributes", edges: map[int][]float64{0: {0, 1, 2.5}, 7: {-3, 10}}},
		{name: "none", edges: map[int][]float64{}},
		{name: "not increasing", edges: map[int][]float64{2: {0, 5, 5}}, err: "not increasing at 5"},
		{name: "NaN", edges: map[int][]float64{2: {0, math.NaN()}}, err: "not finite"},
		{name: "empty", edges: map[int][]float64{4: {}}, err: "0 bin edges for attribute 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := (&Cuts{Edges: tc.edges}).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got Cuts
			err = got.UnmarshalBinary(b)
			if failedAsWanted(t, err, tc.err) {
				return
			}
			if len(got.Edges) != len(tc.edges) {
				t.Fatalf("got %v, want %v", got.Edges, tc.edges)
			}
			for a, e := range tc.edges {
				if !slices.Equal(got.Edges[a], e) {
					t.Errorf("attribute %d: got %v, want %v", a, got.Edges[a], e)
				}
			}
		})
	}
}

// TestGatheringChecksParties: the coordinator takes from each party the
// edges of its own numeric attributes only, once, and tells every member
// all of them once every party has sent its own.
func TestGatheringChecksParties(t *testing.T) {
	expect := map[string][]int{PartyID(0): {0, 2}, PartyID(1): {}}
	type add struct {
		from  string
		edges map[int][]float64
	}
	for _, tc := range []struct {
		name string
		adds []add
		err  string
	}{
		{name: "every party", adds: []add{{PartyID(0), map[int][]float64{0: {0, 1}, 2: {5, 6}}}, {PartyID(1), map[int][]float64{}}}},
		{name: "another party's attribute", adds: []add{{PartyID(1), map[int][]float64{0: {0, 1}}}}, err: "its numeric attributes are []"},
		{name: "one attribute missing", adds: []add{{PartyID(0), map[int][]float64{0: {0, 1}}}}, err: "attributes [0], its numeric attributes are [0 2]"},
		{name: "not a party", adds: []add{{ThirdPartyID, map[int][]float64{}}}, err: "not a party"},
		{name: "twice", adds: []add{{PartyID(1), map[int][]float64{}}, {PartyID(1), map[int][]float64{}}}, err: "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all map[int][]float64
			g := NewGathering(CoordinatorID, expect, []string{PartyID(0), PartyID(1), ThirdPartyID}, func(a map[int][]float64) (protocol.Role, error) {
				all = a
				return NewBinning("stand-in", CoordinatorID, nil, nil), nil
			})
			var out []protocol.Envelope
			var err error
			for _, a := range tc.adds {
				var o []protocol.Envelope
				if o, err = g.Add(a.from, a.edges); err != nil {
					break
				}
				out = append(out, o...)
			}
			if failedAsWanted(t, err, tc.err) {
				return
			}
			if len(all) != 2 || len(out) != 3 {
				t.Fatalf("gathered %v, sent %d messages; want 2 attributes, 3 messages", all, len(out))
			}
			for _, e := range out {
				var c Cuts
				if err := c.UnmarshalBinary(e.Payload); err != nil || e.Type != TypeCuts || !slices.Equal(c.Edges[2], []float64{5, 6}) {
					t.Errorf("sent %s to %s with %v (%v)", e.Type, e.To, c.Edges, err)
				}
			}
		})
	}
}
