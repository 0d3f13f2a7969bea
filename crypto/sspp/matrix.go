package sspp

// Dense matrix products mod 2^64 of the commodity product, row-major,
// parallel over records.

// transposeProduct returns Xᵀ Y for X (n × dx) and Y (n × dy), both dense.
func transposeProduct(x []uint64, dx int, y []uint64, dy int, workers int) []uint64 {
	n := len(x) / dx
	w := workersFor(n, workers)
	parts := make([][]uint64, w)
	chunks(n, w, func(w, lo, hi int) {
		acc := make([]uint64, dx*dy)
		for r := lo; r < hi; r++ {
			yr := y[r*dy : (r+1)*dy]
			for i, a := range x[r*dx : (r+1)*dx] {
				row := acc[i*dy : (i+1)*dy]
				for j, b := range yr {
					row[j] += a * b
				}
			}
		}
		parts[w] = acc
	})
	return sumParts(parts)
}

// transposeOneHot returns Xᵀ Z for X (n × dx) dense and Z one-hot given by
// col (values in [0, dz)).
func transposeOneHot(x []uint64, dx int, col []int32, dz int, workers int) []uint64 {
	n := len(col)
	w := workersFor(n, workers)
	parts := make([][]uint64, w)
	chunks(n, w, func(w, lo, hi int) {
		acc := make([]uint64, dx*dz)
		for r := lo; r < hi; r++ {
			z := int(col[r])
			for i, a := range x[r*dx : (r+1)*dx] {
				acc[i*dz+z] += a
			}
		}
		parts[w] = acc
	})
	return sumParts(parts)
}

// sumParts adds the workers' partial sums (a worker without a range
// leaves nil).
func sumParts(parts [][]uint64) []uint64 {
	out := parts[0]
	for _, p := range parts[1:] {
		if p != nil {
			AddInto(out, p)
		}
	}
	return out
}

// rowOuter returns, for every record r, X_r ⊗ Y_r (n × dx·dy).
func rowOuter(x []uint64, dx int, y []uint64, dy int, workers int) []uint64 {
	n := len(x) / dx
	out := make([]uint64, n*dx*dy)
	chunks(n, workersFor(n, workers), func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			yr := y[r*dy : (r+1)*dy]
			o := out[r*dx*dy : (r+1)*dx*dy]
			for i, a := range x[r*dx : (r+1)*dx] {
				row := o[i*dy : (i+1)*dy]
				for j, b := range yr {
					row[j] = a * b
				}
			}
		}
	})
	return out
}

// rowOneHot returns, for every record r, X_r ⊗ e_{col_r} (n × dx·dz).
func rowOneHot(x []uint64, dx int, col []int32, dz int) []uint64 {
	n := len(col)
	out := make([]uint64, n*dx*dz)
	for r := range n {
		z := int(col[r])
		o := out[r*dx*dz : (r+1)*dx*dz]
		for i, a := range x[r*dx : (r+1)*dx] {
			o[i*dz+z] = a
		}
	}
	return out
}
