//go:build amd64 && !purego

#include "textflag.h"

// AVX2 forms of forwardGateFM and backwardGateFM over float32, eight rows
// per iteration; they stop at len(xa)&^7 and the Go loops do the rest. Each
// vector instruction does one of the Go expression's operations in its
// order (no fused multiply-add), so every lane rounds as the Go loop does.

// func forwardFMAVX2(y, xa, xb []float32, c0, c1, c2, c3 float32)
// y = (c0 + a*(c1 + c3*b)) + c2*b. Y0 = a, Y1 = b, Y12..Y15 = c0..c3.
TEXT ·forwardFMAVX2(SB), NOSPLIT, $0-88
	MOVQ y_base+0(FP), DI
	MOVQ xa_base+24(FP), SI
	MOVQ xa_len+32(FP), CX
	MOVQ xb_base+48(FP), DX
	VBROADCASTSS c0+72(FP), Y12
	VBROADCASTSS c1+76(FP), Y13
	VBROADCASTSS c2+80(FP), Y14
	VBROADCASTSS c3+84(FP), Y15
	XORQ AX, AX
	ANDQ $-8, CX
	JZ fdone

floop:
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS (DX)(AX*4), Y1
	VMULPS  Y1, Y15, Y2
	VADDPS  Y2, Y13, Y2
	VMULPS  Y0, Y2, Y2
	VADDPS  Y2, Y12, Y2
	VMULPS  Y1, Y14, Y3
	VADDPS  Y3, Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     floop

fdone:
	VZEROUPPER
	RET

// func backwardFMAVX2(da, db, g, xa, xb []float32, c1, c2, c3 float32, acc []float32)
// da += g*(c1 + c3*b); db += g*(c2 + c3*a), da before db (they are one
// slice when a gate reads one feature twice), over the first len(xa)&^7
// rows, and the four sums per block of 128 rows: Y12 holds a block's
// even rows' chains (g, g*a, g*b, g*a*b) in its low half and the odd
// rows' in its high half, from zero; at the end of each block, and after
// the last rows if they end inside one, they go to acc[8*b : 8*b+8]. The
// products of eight rows are transposed into four vectors [row r | row
// r+1], added in row order, so every chain adds its rows one at a time in
// the Go loop's order.
TEXT ·backwardFMAVX2(SB), NOSPLIT, $0-160
	MOVQ da_base+0(FP), DI
	MOVQ db_base+24(FP), R8
	MOVQ g_base+48(FP), R9
	MOVQ xa_base+72(FP), SI
	MOVQ xa_len+80(FP), CX
	MOVQ xb_base+96(FP), DX
	VBROADCASTSS c1+120(FP), Y13
	VBROADCASTSS c2+124(FP), Y14
	VBROADCASTSS c3+128(FP), Y15
	MOVQ acc_base+136(FP), BX
	XORQ AX, AX
	ANDQ $-8, CX
	JZ mdone
	VXORPS Y12, Y12, Y12

mloop:
	VMOVUPS (SI)(AX*4), Y0 // a
	VMOVUPS (DX)(AX*4), Y1 // b
	VMOVUPS (R9)(AX*4), Y2 // g

	// da += g*(c1 + c3*b)
	VMULPS  Y1, Y15, Y3
	VADDPS  Y3, Y13, Y3
	VMULPS  Y3, Y2, Y3
	VADDPS  (DI)(AX*4), Y3, Y3
	VMOVUPS Y3, (DI)(AX*4)

	// db += g*(c2 + c3*a)
	VMULPS  Y0, Y15, Y4
	VADDPS  Y4, Y14, Y4
	VMULPS  Y4, Y2, Y4
	VADDPS  (R8)(AX*4), Y4, Y4
	VMOVUPS Y4, (R8)(AX*4)

	// Products: Y2 = g, Y5 = g*a, Y6 = g*b, Y7 = (g*a)*b.
	VMULPS Y0, Y2, Y5
	VMULPS Y1, Y2, Y6
	VMULPS Y1, Y5, Y7

	// Transpose to [row 0 | row 4], [1 | 5], [2 | 6], [3 | 7], each row
	// as (g, g*a, g*b, g*a*b).
	VUNPCKLPS Y5, Y2, Y8
	VUNPCKHPS Y5, Y2, Y9
	VUNPCKLPS Y7, Y6, Y10
	VUNPCKHPS Y7, Y6, Y11
	VSHUFPS   $0x44, Y10, Y8, Y0
	VSHUFPS   $0xEE, Y10, Y8, Y1
	VSHUFPS   $0x44, Y11, Y9, Y2
	VSHUFPS   $0xEE, Y11, Y9, Y3

	// Add rows 0 and 1, 2 and 3, 4 and 5, 6 and 7.
	VPERM2F128 $0x20, Y1, Y0, Y4
	VADDPS     Y4, Y12, Y12
	VPERM2F128 $0x20, Y3, Y2, Y5
	VADDPS     Y5, Y12, Y12
	VPERM2F128 $0x31, Y1, Y0, Y6
	VADDPS     Y6, Y12, Y12
	VPERM2F128 $0x31, Y3, Y2, Y7
	VADDPS     Y7, Y12, Y12

	ADDQ  $8, AX
	TESTQ $127, AX
	JNZ   mnext

	// The end of a block: its sums out, the next block's from zero.
	VMOVUPS Y12, (BX)
	ADDQ    $32, BX
	VXORPS  Y12, Y12, Y12

mnext:
	CMPQ AX, CX
	JLT  mloop
	TESTQ $127, AX
	JZ    mdone
	VMOVUPS Y12, (BX) // the rows ended inside a block

mdone:
	VZEROUPPER
	RET
