package roles

import "sync/atomic"

// Ops counts a role's Paillier operations.
type Ops struct {
	// Encryptions under any key (including the fresh encryptions that
	// rerandomise).
	Encryptions int64 `json:"encryptions"`
	// Decryptions with a party's own private key (Goethals replies).
	Decryptions int64 `json:"decryptions"`
	// PartialDecryptions with a share of the shared key.
	PartialDecryptions int64 `json:"partial_decryptions"`
	// Combinations of partial decryptions.
	Combinations int64 `json:"combinations"`
	// Exponentiations of a ciphertext by a plaintext scalar (including
	// slot packing).
	Exponentiations int64 `json:"exponentiations"`
	// Multiplications of ciphertexts (homomorphic additions).
	Multiplications int64 `json:"multiplications"`
}

// Add returns o + p.
func (o Ops) Add(p Ops) Ops {
	return Ops{o.Encryptions + p.Encryptions, o.Decryptions + p.Decryptions,
		o.PartialDecryptions + p.PartialDecryptions, o.Combinations + p.Combinations,
		o.Exponentiations + p.Exponentiations, o.Multiplications + p.Multiplications}
}

// Sub returns o − p.
func (o Ops) Sub(p Ops) Ops {
	return Ops{o.Encryptions - p.Encryptions, o.Decryptions - p.Decryptions,
		o.PartialDecryptions - p.PartialDecryptions, o.Combinations - p.Combinations,
		o.Exponentiations - p.Exponentiations, o.Multiplications - p.Multiplications}
}

// Total is the number of operations of every kind.
func (o Ops) Total() int64 {
	return o.Encryptions + o.Decryptions + o.PartialDecryptions + o.Combinations + o.Exponentiations + o.Multiplications
}

// meter counts operations from any goroutine.
type meter struct {
	enc, dec, pdec, comb, exp, mul atomic.Int64
}

func (m *meter) snapshot() Ops {
	return Ops{m.enc.Load(), m.dec.Load(), m.pdec.Load(), m.comb.Load(), m.exp.Load(), m.mul.Load()}
}
