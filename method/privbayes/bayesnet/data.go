package bayesnet

import (
	"fmt"
	"slices"
)

// Data is a discretised table held as its distinct rows with
// multiplicities: Rows[i][j] ∈ [0, Cards[j]) and Count[i] ≥ 0 copies of
// row i. N is the total count. Compressing to distinct rows makes every
// marginal cost O(distinct rows) instead of O(n).
type Data struct {
	Cards []int
	Rows  [][]int
	Count []float64
	N     float64
}

// NewData compresses rows (each a slice of codes, one per attribute) into
// distinct rows with counts. It checks every code against cards.
func NewData(cards []int, rows [][]int) (*Data, error) {
	if err := checkCards(cards); err != nil {
		return nil, err
	}
	d := &Data{Cards: slices.Clone(cards)}
	index := make(map[string]int, len(rows))
	key := make([]byte, 0, 2*len(cards))
	for i, r := range rows {
		if len(r) != len(cards) {
			return nil, fmt.Errorf("privbayes: row %d has %d codes, want %d", i, len(r), len(cards))
		}
		key = key[:0]
		for j, c := range r {
			if c < 0 || c >= cards[j] {
				return nil, fmt.Errorf("privbayes: row %d attribute %d holds code %d, outside [0, %d)", i, j, c, cards[j])
			}
			key = append(key, byte(c), byte(c>>8))
		}
		k, ok := index[string(key)]
		if !ok {
			k = len(d.Rows)
			index[string(key)] = k
			d.Rows = append(d.Rows, slices.Clone(r))
			d.Count = append(d.Count, 0)
		}
		d.Count[k]++
		d.N++
	}
	return d, nil
}

func checkCards(cards []int) error {
	if len(cards) == 0 {
		return fmt.Errorf("privbayes: no attributes")
	}
	for j, c := range cards {
		if c < 1 || c > 1<<16 {
			return fmt.Errorf("privbayes: attribute %d has %d values, want 1 to 65536", j, c)
		}
	}
	return nil
}

// Merge returns the multiset union of a and b (same attributes).
func Merge(a, b *Data) (*Data, error) {
	if !slices.Equal(a.Cards, b.Cards) {
		return nil, fmt.Errorf("privbayes: cannot merge data over domains %v and %v", a.Cards, b.Cards)
	}
	rows := make([][]int, 0, len(a.Rows)+len(b.Rows))
	counts := make([]float64, 0, len(a.Rows)+len(b.Rows))
	rows = append(append(rows, a.Rows...), b.Rows...)
	counts = append(append(counts, a.Count...), b.Count...)
	return &Data{Cards: slices.Clone(a.Cards), Rows: rows, Count: counts, N: a.N + b.N}, nil
}

// Dims is the number of attributes.
func (d *Data) Dims() int { return len(d.Cards) }

// Marginal is a table of counts over the attributes Attrs, in mixed radix
// with the last attribute varying fastest.
type Marginal struct {
	Attrs  []int
	Cards  []int
	Counts []float64
}

// DomainSize is the product of the cards, or 0 if it exceeds limit.
func DomainSize(cards []int, attrs []int, limit int) int {
	size := 1
	for _, a := range attrs {
		if size > limit/cards[a] {
			return 0
		}
		size *= cards[a]
	}
	return size
}

// Marginal counts d over attrs (distinct attribute indices). It panics if
// the marginal would have more than 1<<28 cells (a programmer error:
// callers bound domains first).
func (d *Data) Marginal(attrs []int) Marginal {
	size := DomainSize(d.Cards, attrs, 1<<28)
	if size == 0 {
		panic(fmt.Sprintf("privbayes: marginal over %v is too large", attrs))
	}
	m := Marginal{Attrs: slices.Clone(attrs), Cards: make([]int, len(attrs)), Counts: make([]float64, size)}
	for k, a := range attrs {
		m.Cards[k] = d.Cards[a]
	}
	for i, r := range d.Rows {
		idx := 0
		for k, a := range attrs {
			idx = idx*m.Cards[k] + r[a]
		}
		m.Counts[idx] += d.Count[i]
	}
	return m
}

// Project sums m down to attrs, a subset of m.Attrs in any order; the
// result has the order of attrs.
func (m Marginal) Project(attrs []int) Marginal {
	pos := make([]int, len(attrs))
	out := Marginal{Attrs: slices.Clone(attrs), Cards: make([]int, len(attrs))}
	size := 1
	for k, a := range attrs {
		p := slices.Index(m.Attrs, a)
		if p < 0 {
			panic(fmt.Sprintf("privbayes: attribute %d is not in marginal %v", a, m.Attrs))
		}
		pos[k] = p
		out.Cards[k] = m.Cards[p]
		size *= m.Cards[p]
	}
	out.Counts = make([]float64, size)
	digits := make([]int, len(m.Attrs))
	for _, v := range m.Counts {
		idx := 0
		for k, p := range pos {
			idx = idx*out.Cards[k] + digits[p]
		}
		out.Counts[idx] += v
		next(digits, m.Cards)
	}
	return out
}

// next advances mixed-radix digits (last fastest) by one.
func next(digits, cards []int) {
	for k := len(digits) - 1; k >= 0; k-- {
		digits[k]++
		if digits[k] < cards[k] {
			return
		}
		digits[k] = 0
	}
}

// contains reports whether every attribute of sub is in set.
func contains(set, sub []int) bool {
	for _, a := range sub {
		if !slices.Contains(set, a) {
			return false
		}
	}
	return true
}
