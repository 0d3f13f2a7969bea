package privacy

import (
	"github.com/dppub/dppub/dp"
)

// Status is the report's verdict on its guarantee. It comes first in the
// JSON and in the terminal headline so that a reader who looks no further
// is not misled by the nominal (claimed) figure.
type Status string

const (
	// Holds: the claimed guarantee holds, under the report's assumptions
	// and threat model.
	Holds Status = "holds"
	// NoneSeeded: the randomness was seeded (randx.NewSeeded), so the noise
	// is predictable and the output carries no guarantee at all.
	NoneSeeded Status = "none-seeded"
	// NotStandardDP: the release is calibrated to a sensitivity computed
	// from the private data (MP-CRDP's correlated notions), so it has no
	// standard differential-privacy guarantee.
	NotStandardDP Status = "not-standard-dp"
	// ExceedsClaim: the releases really lose more privacy than they are
	// charged (a paper calibration whose sensitivity is wrong); the report
	// states the actual figure beside the claimed one.
	ExceedsClaim Status = "exceeds-claim"
	// NotDP: the charged releases keep their guarantee, but part of the
	// published output is computed from the records without noise, so the
	// output as a whole is not differentially private.
	NotDP Status = "not-dp"
)

// statuses lists every status, most severe first: a report takes the first
// that applies. ExceedsClaim ranks above NotDP so that the quantified
// actual figure leads; the headline still names the uncovered parts.
var statuses = []Status{NoneSeeded, NotStandardDP, ExceedsClaim, NotDP, Holds}

// ParseStatus checks a status name.
func ParseStatus(s string) (Status, error) {
	return dp.NewWords("guarantee status", statuses...).In("privacy").Parse(s)
}

// UnmarshalText accepts only the known statuses, so that a report read
// back never carries a verdict this code does not understand.
func (s *Status) UnmarshalText(b []byte) error {
	st, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// Phrase is the status in the words of the terminal headline.
func (s Status) Phrase() string {
	switch s {
	case Holds:
		return "holds"
	case NoneSeeded:
		return "NONE (seeded)"
	case NotStandardDP:
		return "NOT STANDARD DP"
	case ExceedsClaim:
		return "EXCEEDS THE CLAIM"
	case NotDP:
		return "NOT DP (part of the output)"
	}
	return string(s)
}

// String returns the word as flags and JSON spell it.
func (s Status) String() string { return string(s) }
