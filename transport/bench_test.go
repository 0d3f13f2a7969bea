package transport

import (
	"fmt"
	"testing"
)

// BenchmarkSession measures the transport's own cost: one echo session
// (open, start, one message each way per spoke, receipts, end) between a
// hub and 3 spokes over loopback mutual TLS, with the ledger commits.
func BenchmarkSession(b *testing.B) {
	for _, payload := range []int{1 << 10, 512 << 10} {
		b.Run(fmt.Sprintf("payload=%dKiB", payload>>10), func(b *testing.B) {
			n := newTestNet(b, 3, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := n.run(1e-6, payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
