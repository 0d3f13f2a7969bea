package data

import "strings"

// The readers parse every cell of a file, so the three per-cell steps —
// trimming, looking a category up, parsing a number — have fast paths for
// the common case that give exactly the slow path's answer and fall back
// to it for anything else (a profile of `dppub statistics` at 10⁶ Adult
// rows: map lookups, strconv.ParseFloat and strings.TrimSpace were a
// quarter of its CPU).

// trimSpace is strings.TrimSpace. Blanks at either end (UCI files put
// one after every separator) are cut first, as strings.TrimSpace would
// cut them. What is left has nothing more to trim if its first and last
// bytes are ASCII and above ' ': every byte strings.TrimSpace removes is
// an ASCII space (at most ' ') or part of a multi-byte rune (at least
// 0x80). Anything else goes to strings.TrimSpace.
func trimSpace(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 {
		if a, b := s[0], s[len(s)-1]; a > ' ' && a < 0x80 && b > ' ' && b < 0x80 {
			return s
		}
	}
	return strings.TrimSpace(s)
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal parses a plain decimal — an optional sign, digits, and
// optionally a point and more digits, at most 15 digits in all — and
// reports false for anything else (exponents, underscores, hex, inf, nan,
// spaces, more digits), which the caller hands to strconv.ParseFloat.
// Its result is bit for bit strconv.ParseFloat(s, 64)'s: the digits
// without the point form an integer m < 10^15 < 2^53 and the value is
// m / 10^k with k ≤ 15, where both m and 10^k are exact float64s, so the
// one correctly rounded IEEE division is the correctly rounded decimal,
// which is what strconv returns (this is strconv's own exact fast path,
// without its general machinery). The sign is applied after, exactly, so
// "-0" is −0 as in strconv.
func parseDecimal(s string) (float64, bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	var m uint64
	digits, frac, point := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	v := float64(m)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// catIndex finds a category's index by a perfect hash over the declared
// categories: a key made of the length and four bytes of the name,
// multiplied by a seed chosen so that no two categories share a slot. A
// name found in its slot is that category; any other name is none (each
// category sits in the slot its own key picks). When no seed separates
// the names (two with the same length and the same bytes at the sampled
// places, or duplicates), the map is used, as before.
type catIndex struct {
	slots []catSlot
	seed  uint64
	shift uint
	m     map[string]int // the fallback, or nil
}

type catSlot struct {
	name string
	idx  int
}

func catKey[S string | []byte](s S) uint64 {
	n := len(s)
	return uint64(n) | uint64(s[0])<<8 | uint64(s[n-1])<<16 | uint64(s[n/2])<<24 | uint64(s[n/3])<<32 | uint64(s[min(1, n-1)])<<40
}

func newCatIndex(cats []string) catIndex {
	m := make(map[string]int, len(cats))
	for i, c := range cats {
		m[c] = i
	}
	if _, empty := m[""]; empty || len(m) != len(cats) || len(cats) == 0 || len(cats) > 1<<12 {
		return catIndex{m: m}
	}
	bits := uint(1)
	for 1<<bits < 2*len(cats) {
		bits++
	}
	// A fixed sequence of odd seeds (splitmix64's increment walks through
	// them): the index is the same on every run, and a few table sizes
	// are tried before giving up.
	seed := uint64(0x9e3779b97f4a7c15)
	for b := bits; b < bits+4; b++ {
		slots := make([]catSlot, 1<<b)
		for range 64 {
			seed += 0x9e3779b97f4a7c15
			s := seed | 1
			clear(slots)
			ok := true
			for i, c := range cats {
				k := (catKey(c) * s) >> (64 - b)
				if slots[k].name != "" {
					ok = false
					break
				}
				slots[k] = catSlot{name: c, idx: i}
			}
			if ok {
				return catIndex{slots: slots, seed: s, shift: 64 - b}
			}
		}
	}
	return catIndex{m: m}
}

// get returns the index of category s, as the map cats → index would.
func (c *catIndex) get(s string) (int, bool) {
	if c.m != nil {
		k, ok := c.m[s]
		return k, ok
	}
	if len(s) == 0 {
		return 0, false // no category is empty (newCatIndex saw to it)
	}
	sl := &c.slots[(catKey(s)*c.seed)>>c.shift]
	if sl.name == s {
		return sl.idx, true
	}
	return 0, false
}

// getBytes is get of a name held in bytes (Parquet's), without copying
// them into a string.
func (c *catIndex) getBytes(b []byte) (int, bool) {
	if c.m != nil {
		k, ok := c.m[string(b)]
		return k, ok
	}
	if len(b) == 0 {
		return 0, false
	}
	sl := &c.slots[(catKey(b)*c.seed)>>c.shift]
	if sl.name == string(b) {
		return sl.idx, true
	}
	return 0, false
}
