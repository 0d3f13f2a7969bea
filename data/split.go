package data

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/randx"
)

// SplitHorizontal deals t's rows out to parts data owners: the rows are
// shuffled with src and cut into consecutive chunks of the given sizes
// (nil: sizes as equal as possible, the first Len%parts chunks one row
// longer). Every part gets at least one row; parts are copies.
func SplitHorizontal(t *Table, parts int, sizes []int, src *randx.Source) ([]*Table, error) {
	if parts < 1 {
		return nil, fmt.Errorf("data: split into %d parts: need at least 1", parts)
	}
	if src == nil {
		return nil, errors.New("data: split: nil random source")
	}
	n := t.Len()
	if sizes == nil {
		sizes = equalSizes(n, parts)
	}
	if len(sizes) != parts {
		return nil, fmt.Errorf("data: split: %d sizes for %d parts", len(sizes), parts)
	}
	total := 0
	for i, s := range sizes {
		if s < 1 {
			return nil, fmt.Errorf("data: split: part %d would get %d rows (table has %d rows for %d parts)", i, s, n, parts)
		}
		total += s
	}
	if total != n {
		return nil, fmt.Errorf("data: split: sizes sum to %d, table has %d rows", total, n)
	}
	perm := src.Perm(n)
	out := make([]*Table, parts)
	at := 0
	for i, s := range sizes {
		out[i] = t.Subset(perm[at : at+s])
		at += s
	}
	return out, nil
}

func equalSizes(n, parts int) []int {
	sizes := make([]int, parts)
	for i := range sizes {
		sizes[i] = n / parts
		if i < n%parts {
			sizes[i]++
		}
	}
	return sizes
}

// TrainTestSplit shuffles t's rows with src and returns round(trainFrac·n)
// of them as train and the rest as test; both must be non-empty.
func TrainTestSplit(t *Table, trainFrac float64, src *randx.Source) (train, test *Table, err error) {
	if !(trainFrac > 0 && trainFrac < 1) {
		return nil, nil, fmt.Errorf("data: train fraction %g is not in (0, 1)", trainFrac)
	}
	n := t.Len()
	nTrain := int(math.Round(trainFrac * float64(n)))
	if nTrain < 1 || nTrain >= n {
		return nil, nil, fmt.Errorf("data: train fraction %g of %d rows leaves an empty train or test set", trainFrac, n)
	}
	parts, err := SplitHorizontal(t, 2, []int{nTrain, n - nTrain}, src)
	if err != nil {
		return nil, nil, err
	}
	return parts[0], parts[1], nil
}

// SplitVertical gives each party the named attributes of every row, as in
// vertically partitioned data: group i lists party i's attributes. Every
// part keeps the IDs, which is how parties align their rows. Groups must
// be non-empty, disjoint and name attributes of t; they need not cover
// all of them.
func SplitVertical(t *Table, groups [][]string) ([]*Table, error) {
	if len(groups) == 0 {
		return nil, errors.New("data: vertical split: no groups")
	}
	owner := make(map[string]int)
	out := make([]*Table, len(groups))
	for g, names := range groups {
		if len(names) == 0 {
			return nil, fmt.Errorf("data: vertical split: group %d is empty", g)
		}
		for _, name := range names {
			if prev, dup := owner[name]; dup {
				return nil, fmt.Errorf("data: vertical split: attribute %q is in groups %d and %d", name, prev, g)
			}
			owner[name] = g
		}
		part, err := t.SelectColumns(names...)
		if err != nil {
			return nil, fmt.Errorf("data: vertical split: group %d: %w", g, err)
		}
		out[g] = part
	}
	return out, nil
}

// EvenColumnGroups cuts names, in order, into parties contiguous groups of
// near-equal size (group p gets names[p·d/k : (p+1)·d/k]): the column split
// every command's `--parties K` uses.
func EvenColumnGroups(names []string, parties int) ([][]string, error) {
	d := len(names)
	if parties < 1 || parties > d {
		return nil, fmt.Errorf("data: cannot split %d attributes among %d parties", d, parties)
	}
	out := make([][]string, parties)
	for p := range parties {
		out[p] = slices.Clone(names[p*d/parties : (p+1)*d/parties])
	}
	return out, nil
}

// SplitVerticalEven gives each of parties owners a contiguous group of t's
// columns (EvenColumnGroups), every owner keeping all records.
func SplitVerticalEven(t *Table, parties int) ([]*Table, error) {
	groups, err := EvenColumnGroups(t.Schema.Names(), parties)
	if err != nil {
		return nil, err
	}
	return SplitVertical(t, groups)
}
