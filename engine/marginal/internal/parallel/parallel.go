// Package parallel splits the marginal engine's independent pieces of
// work among goroutines (internal: the model's fitting and the adaptive
// method's selection share it).
package parallel

import (
	"sync"
)

// For runs f(0..n−1) on both cores when the work (sum of size(i))
// is large enough to pay for the goroutines.
func For(n int, f func(int), size func(int) int) {
	total := 0
	for i := range n {
		total += size(i)
	}
	if total < 1<<15 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range 2 {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
