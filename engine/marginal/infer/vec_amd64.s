//go:build !purego

#include "textflag.h"

// Eight cells per iteration in two 256-bit registers, then one at a time:
// VMULPD and VADDPD round each lane as MULSD and ADDSD round a scalar (no
// fused multiply-add), so the results are the scalar loop's to the bit.

// func mulVecAsm(dst, a, b []float64)
TEXT ·mulVecAsm(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	MOVQ b_base+48(FP), DX
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-8, BX

mulLoop:
	CMPQ AX, BX
	JGE  mulTail
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMULPD  (DX)(AX*8), Y0, Y0
	VMULPD  32(DX)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     mulLoop

mulTail:
	CMPQ   AX, CX
	JGE    mulDone
	VMOVSD (SI)(AX*8), X0
	VMULSD (DX)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    mulTail

mulDone:
	VZEROUPPER
	RET

// func addVecAsm(dst, a []float64)
TEXT ·addVecAsm(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ a_len+32(FP), CX
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-8, BX

addLoop:
	CMPQ    AX, BX
	JGE     addTail
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VADDPD  (SI)(AX*8), Y0, Y0
	VADDPD  32(SI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     addLoop

addTail:
	CMPQ   AX, CX
	JGE    addDone
	VMOVSD (DI)(AX*8), X0
	VADDSD (SI)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    addTail

addDone:
	VZEROUPPER
	RET

// func scaleVecAsm(dst, a []float64, m float64)
TEXT ·scaleVecAsm(SB), NOSPLIT, $0-56
	MOVQ         dst_base+0(FP), DI
	MOVQ         a_base+24(FP), SI
	MOVQ         a_len+32(FP), CX
	VBROADCASTSD m+48(FP), Y2
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-8, BX

scaleLoop:
	CMPQ    AX, BX
	JGE     scaleTail
	VMULPD  (SI)(AX*8), Y2, Y0
	VMULPD  32(SI)(AX*8), Y2, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     scaleLoop

scaleTail:
	CMPQ   AX, CX
	JGE    scaleDone
	VMOVSD (SI)(AX*8), X0
	VMULSD X2, X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    scaleTail

scaleDone:
	VZEROUPPER
	RET

// func axpyVecAsm(dst, a []float64, y float64)
TEXT ·axpyVecAsm(SB), NOSPLIT, $0-56
	MOVQ         dst_base+0(FP), DI
	MOVQ         a_base+24(FP), SI
	MOVQ         a_len+32(FP), CX
	VBROADCASTSD y+48(FP), Y2
	XORQ         AX, AX
	MOVQ         CX, BX
	ANDQ         $-8, BX

axpyLoop:
	CMPQ    AX, BX
	JGE     axpyTail
	VMULPD  (SI)(AX*8), Y2, Y0
	VMULPD  32(SI)(AX*8), Y2, Y1
	VADDPD  (DI)(AX*8), Y0, Y0
	VADDPD  32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ    $8, AX
	JMP     axpyLoop

axpyTail:
	CMPQ   AX, CX
	JGE    axpyDone
	VMOVSD (SI)(AX*8), X0
	VMULSD X2, X0, X0
	VADDSD (DI)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    axpyTail

axpyDone:
	VZEROUPPER
	RET

// func addPairsAsm(out, row []float64, idx []int32)
//
// Consecutive pairs often add onto the same pair of out (a separator that
// lacks the attributes before the label): the running pair stays in X1
// until the index changes, the same additions in the same order without
// a store and a load between them.
TEXT ·addPairsAsm(SB), NOSPLIT, $0-72
	MOVQ out_base+0(FP), DI
	MOVQ row_base+24(FP), SI
	MOVQ row_len+32(FP), CX
	MOVQ idx_base+48(FP), DX
	XORQ AX, AX
	MOVQ $-1, R10

addPairsLoop:
	CMPQ    AX, CX
	JGE     addPairsDone
	MOVLQSX (DX)(AX*4), BX
	CMPQ    BX, R10
	JEQ     addPairsSame
	CMPQ    R10, $-1
	JEQ     addPairsLoad
	MOVUPD  X1, (DI)(R10*8)

addPairsLoad:
	MOVUPD (DI)(BX*8), X1
	MOVQ   BX, R10

addPairsSame:
	MOVUPD (SI)(AX*8), X0
	ADDPD  X0, X1
	ADDQ   $2, AX
	JMP    addPairsLoop

addPairsDone:
	CMPQ   R10, $-1
	JEQ    addPairsReturn
	MOVUPD X1, (DI)(R10*8)

addPairsReturn:
	RET

// func mulPairsAsm(dst, src, f []float64, idx []int32)
TEXT ·mulPairsAsm(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVQ f_base+48(FP), R8
	MOVQ idx_base+72(FP), DX
	XORQ AX, AX

mulPairsLoop:
	CMPQ    AX, CX
	JGE     mulPairsDone
	MOVLQSX (DX)(AX*4), BX
	MOVUPD  (SI)(AX*8), X0
	MOVUPD  (R8)(BX*8), X1
	MULPD   X1, X0
	MOVUPD  X0, (DI)(AX*8)
	ADDQ    $2, AX
	JMP     mulPairsLoop

mulPairsDone:
	RET

// func sumPairsAsm(out, src []float64, idx []int32)
//
// As in addPairsAsm, the running sum stays in X2 while the index holds.
TEXT ·sumPairsAsm(SB), NOSPLIT, $0-72
	MOVQ out_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ idx_base+48(FP), DX
	MOVQ idx_len+56(FP), CX
	XORQ AX, AX
	MOVQ $-1, R10

sumPairsLoop:
	CMPQ    AX, CX
	JGE     sumPairsDone
	MOVLQSX (DX)(AX*4), BX
	CMPQ    BX, R10
	JEQ     sumPairsSame
	CMPQ    R10, $-1
	JEQ     sumPairsLoad
	MOVSD   X2, (DI)(R10*8)

sumPairsLoad:
	MOVSD (DI)(BX*8), X2
	MOVQ  BX, R10

sumPairsSame:
	LEAQ     (AX)(AX*1), R9
	MOVUPD   (SI)(R9*8), X0
	MOVAPD   X0, X1
	UNPCKHPD X1, X1
	ADDSD    X1, X0
	ADDSD    X0, X2
	INCQ     AX
	JMP      sumPairsLoop

sumPairsDone:
	CMPQ  R10, $-1
	JEQ   sumPairsReturn
	MOVSD X2, (DI)(R10*8)

sumPairsReturn:
	RET

// func scalePairsAsm(dst, src, f []float64, idx []int32)
TEXT ·scalePairsAsm(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ f_base+48(FP), R8
	MOVQ idx_base+72(FP), DX
	MOVQ idx_len+80(FP), CX
	XORQ AX, AX

scalePairsLoop:
	CMPQ     AX, CX
	JGE      scalePairsDone
	MOVLQSX  (DX)(AX*4), BX
	LEAQ     (AX)(AX*1), R9
	MOVSD    (R8)(BX*8), X1
	UNPCKLPD X1, X1
	MOVUPD   (SI)(R9*8), X0
	MULPD    X1, X0
	MOVUPD   X0, (DI)(R9*8)
	INCQ     AX
	JMP      scalePairsLoop

scalePairsDone:
	RET

// func mulRowsAsm(dst, src, g []float64)
//
// Row after row of len(g) cells: four cells per instruction, then the
// row's last one to three one at a time.
TEXT ·mulRowsAsm(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), R11
	MOVQ g_base+48(FP), DX
	MOVQ g_len+56(FP), CX
	MOVQ CX, BX
	ANDQ $-4, BX
	LEAQ (SI)(R11*8), R11  // the end of src

mulRowsRow:
	CMPQ SI, R11
	JGE  mulRowsDone
	XORQ AX, AX

mulRowsLoop:
	CMPQ    AX, BX
	JGE     mulRowsTail
	VMOVUPD (SI)(AX*8), Y0
	VMULPD  (DX)(AX*8), Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     mulRowsLoop

mulRowsTail:
	CMPQ   AX, CX
	JGE    mulRowsNext
	VMOVSD (SI)(AX*8), X0
	VMULSD (DX)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    mulRowsTail

mulRowsNext:
	LEAQ (SI)(CX*8), SI
	LEAQ (DI)(CX*8), DI
	JMP  mulRowsRow

mulRowsDone:
	VZEROUPPER
	RET

// func addRowsAsm(g, v []float64)
//
// Sixteen cells of g at a time (then four, then one) stay in registers
// while every row adds onto them, in row order: the same additions in the
// same order as row after row through memory, without a store and a
// reload of g between rows.
TEXT ·addRowsAsm(SB), NOSPLIT, $0-48
	MOVQ v_len+32(FP), AX
	MOVQ g_len+8(FP), CX
	XORQ DX, DX
	DIVQ CX                // the rows
	MOVQ AX, R13
	MOVQ g_base+0(FP), DI
	MOVQ v_base+24(FP), SI
	MOVQ CX, R12
	SHLQ $3, R12           // a row's bytes
	XORQ AX, AX
	MOVQ CX, BX
	ANDQ $-16, BX

addRows16:
	CMPQ    AX, BX
	JGE     addRows4Start
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD 64(DI)(AX*8), Y2
	VMOVUPD 96(DI)(AX*8), Y3
	LEAQ    (SI)(AX*8), R8
	MOVQ    R13, R9

addRows16Row:
	TESTQ  R9, R9
	JEQ    addRows16Store
	VADDPD (R8), Y0, Y0
	VADDPD 32(R8), Y1, Y1
	VADDPD 64(R8), Y2, Y2
	VADDPD 96(R8), Y3, Y3
	ADDQ   R12, R8
	DECQ   R9
	JMP    addRows16Row

addRows16Store:
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ    $16, AX
	JMP     addRows16

addRows4Start:
	MOVQ CX, BX
	ANDQ $-4, BX

addRows4:
	CMPQ    AX, BX
	JGE     addRows1
	VMOVUPD (DI)(AX*8), Y0
	LEAQ    (SI)(AX*8), R8
	MOVQ    R13, R9

addRows4Row:
	TESTQ  R9, R9
	JEQ    addRows4Store
	VADDPD (R8), Y0, Y0
	ADDQ   R12, R8
	DECQ   R9
	JMP    addRows4Row

addRows4Store:
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     addRows4

addRows1:
	CMPQ   AX, CX
	JGE    addRowsDone
	VMOVSD (DI)(AX*8), X0
	LEAQ   (SI)(AX*8), R8
	MOVQ   R13, R9

addRows1Row:
	TESTQ  R9, R9
	JEQ    addRows1Store
	VADDSD (R8), X0, X0
	ADDQ   R12, R8
	DECQ   R9
	JMP    addRows1Row

addRows1Store:
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    addRows1

addRowsDone:
	VZEROUPPER
	RET
