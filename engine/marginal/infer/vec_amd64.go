//go:build !purego

package infer

import "golang.org/x/sys/cpu"

// hasVec says the processor and the OS support AVX's 256-bit registers.
var hasVec = cpu.X86.HasAVX

// The kernels of vec_amd64.s: the slices have the same length.

//go:noescape
func mulVecAsm(dst, a, b []float64)

//go:noescape
func addVecAsm(dst, a []float64)

//go:noescape
func scaleVecAsm(dst, a []float64, m float64)

// mulRowsAsm and addRowsAsm take len(src) and len(v) a multiple of
// len(g), and len(g) at least 4.

//go:noescape
func mulRowsAsm(dst, src, g []float64)

//go:noescape
func addRowsAsm(g, v []float64)

//go:noescape
func axpyVecAsm(dst, a []float64, y float64)

// The pair kernels use SSE2's 128-bit registers, which every amd64
// processor has.

//go:noescape
func addPairsAsm(out, row []float64, idx []int32)

//go:noescape
func mulPairsAsm(dst, src, f []float64, idx []int32)

//go:noescape
func sumPairsAsm(out, src []float64, idx []int32)

//go:noescape
func scalePairsAsm(dst, src, f []float64, idx []int32)
