package correlation

import "sync"

// referenceScan compares every pair of records: O(n²·l) time, O(n) memory
// per worker. Worker w takes the rows i ≡ w (mod workers) and the pairs
// (i, j > i), so the triangular work is spread evenly.
func referenceScan(c *Codes, t, workers int) ([]int64, []int32) {
	n, l := c.n, c.L()
	sums := make([][]int64, workers)
	cnts := make([][]int32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum, cnt := make([]int64, n), make([]int32, n)
			for i := w; i < n; i += workers {
				scanRow(c.data, i, n, l, t, sum, cnt)
			}
			sums[w], cnts[w] = sum, cnt
		}()
	}
	wg.Wait()
	sum, cnt := sums[0], cnts[0]
	for w := 1; w < workers; w++ {
		for i := range sum {
			sum[i] += sums[w][i]
			cnt[i] += cnts[w][i]
		}
	}
	for i := range sum {
		sum[i] += int64(l) // w_ii = 1
		cnt[i]++
	}
	return sum, cnt
}

// scanRow adds record i's correlated pairs (i, j > i) to both ends.
func scanRow(data []uint32, i, n, l, t int, sum []int64, cnt []int32) {
	ri := data[i*l : (i+1)*l]
	allowed := l - t // disagreements a correlated pair may have
	for j := i + 1; j < n; j++ {
		rj := data[j*l : (j+1)*l]
		miss := 0
		for f, v := range ri {
			if v != rj[f] {
				if miss++; miss > allowed {
					break
				}
			}
		}
		if miss > allowed {
			continue
		}
		a := int64(l - miss)
		sum[i] += a
		sum[j] += a
		cnt[i]++
		cnt[j]++
	}
}
