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
