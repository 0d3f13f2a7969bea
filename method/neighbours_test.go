package method

import (
	"errors"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
)

func TestCheckNeighbours(t *testing.T) {
	for _, tc := range []struct {
		nb   dp.Neighbours
		want string // "" for accepted
	}{
		{"", ""},
		{dp.NeighboursReplaceOne, ""},
		{dp.NeighboursAddRemove, "synthesize-rows does not support --neighbours add-remove (supported: [replace-one])"},
		{"swap", `unknown neighbouring relation "swap"`},
	} {
		t.Run(string(tc.nb), func(t *testing.T) {
			err := CheckNeighbours("synthesize-rows", tc.nb, dp.NeighboursReplaceOne)
			var fe FieldError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.As(err, &fe) || fe.Key != "neighbours" || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want a mistake in neighbours saying %q", err, tc.want)
			}
		})
	}
}
