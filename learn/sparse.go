package learn

// sparseRows is a compressed-sparse-row copy of a matrix's non-zeros. The
// dual solver switches to it for sparse data (one-hot encodings are ~90%
// zeros), where a dot product over the non-zeros is several times cheaper
// than a dense one.
type sparseRows struct {
	ptr []int // row i's entries are idx/val[ptr[i]:ptr[i+1]]
	idx []int32
	val []float64
}

// maxSparseDensity is the fraction of non-zeros up to which the sparse form
// pays off.
const maxSparseDensity = 0.4

// toSparse returns the sparse form of rows, or nil when they are too dense
// for it to pay off.
func toSparse(rows [][]float64) *sparseRows {
	nnz, total := 0, 0
	for _, x := range rows {
		total += len(x)
		for _, v := range x {
			if v != 0 {
				nnz++
			}
		}
	}
	if float64(nnz) > maxSparseDensity*float64(total) {
		return nil
	}
	s := &sparseRows{ptr: make([]int, len(rows)+1), idx: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
	for i, x := range rows {
		for j, v := range x {
			if v != 0 {
				s.idx = append(s.idx, int32(j))
				s.val = append(s.val, v)
			}
		}
		s.ptr[i+1] = len(s.idx)
	}
	return s
}

// dot returns w·xᵢ.
func (s *sparseRows) dot(i int, w []float64) float64 {
	lo, hi := s.ptr[i], s.ptr[i+1]
	idx, val := s.idx[lo:hi], s.val[lo:hi]
	var sum float64
	for k, j := range idx {
		sum += w[j] * val[k]
	}
	return sum
}

// axpy adds a·xᵢ to w.
func (s *sparseRows) axpy(i int, a float64, w []float64) {
	lo, hi := s.ptr[i], s.ptr[i+1]
	idx, val := s.idx[lo:hi], s.val[lo:hi]
	for k, j := range idx {
		w[j] += a * val[k]
	}
}
