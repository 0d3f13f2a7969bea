//go:build !amd64 || purego

package infer

const hasVec = false

func mulVecAsm(dst, a, b []float64)           { mulVecGo(dst, a, b) }
func addVecAsm(dst, a []float64)              { addVecGo(dst, a) }
func scaleVecAsm(dst, a []float64, m float64) { scaleVecGo(dst, a, m) }
func axpyVecAsm(dst, a []float64, y float64)  { axpyVecGo(dst, a, y) }
