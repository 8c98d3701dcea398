//go:build amd64 && !purego

#include "textflag.h"

// AVX2 forms of the gate loops of kernel.go: func name(dst, a, b []uint64)
// sets dst[i] = f(a[i], b[i]) for every i < len(dst), four words per
// vector instruction and a scalar loop for the last len(dst)%4. a and b
// must be at least as long as dst (applyOp reslices them). Registers: Y0 =
// a, Y1 = b, Y15 = all ones; R8 = a[i], R9 = b[i] in the scalar loop.

#define V_AND VPAND Y1, Y0, Y0
#define S_AND ANDQ R9, R8
#define V_ANDNOT VPANDN Y0, Y1, Y0
#define S_ANDNOT NOTQ R9; ANDQ R9, R8
#define V_OR VPOR Y1, Y0, Y0
#define S_OR ORQ R9, R8
#define V_XOR VPXOR Y1, Y0, Y0
#define S_XOR XORQ R9, R8
#define V_NAND VPAND Y1, Y0, Y0; VPXOR Y15, Y0, Y0
#define S_NAND ANDQ R9, R8; NOTQ R8
#define V_NOR VPOR Y1, Y0, Y0; VPXOR Y15, Y0, Y0
#define S_NOR ORQ R9, R8; NOTQ R8
#define V_XNOR VPXOR Y1, Y0, Y0; VPXOR Y15, Y0, Y0
#define S_XNOR XORQ R9, R8; NOTQ R8
#define V_ORNOT VPXOR Y15, Y1, Y1; VPOR Y1, Y0, Y0
#define S_ORNOT NOTQ R9; ORQ R9, R8
#define V_NOT VPXOR Y15, Y0, Y0
#define S_NOT NOTQ R8

#define KERNEL(name, VOP, SOP) \
TEXT name(SB), NOSPLIT, $0-72; \
	MOVQ dst_base+0(FP), DI; \
	MOVQ dst_len+8(FP), CX; \
	MOVQ a_base+24(FP), SI; \
	MOVQ b_base+48(FP), DX; \
	XORQ AX, AX; \
	VPCMPEQQ Y15, Y15, Y15; \
	MOVQ CX, BX; \
	ANDQ $-4, BX; \
	JZ tail; \
vloop: \
	VMOVDQU (SI)(AX*8), Y0; \
	VMOVDQU (DX)(AX*8), Y1; \
	VOP; \
	VMOVDQU Y0, (DI)(AX*8); \
	ADDQ $4, AX; \
	CMPQ AX, BX; \
	JLT vloop; \
tail: \
	CMPQ AX, CX; \
	JGE done; \
	MOVQ (SI)(AX*8), R8; \
	MOVQ (DX)(AX*8), R9; \
	SOP; \
	MOVQ R8, (DI)(AX*8); \
	INCQ AX; \
	JMP tail; \
done: \
	VZEROUPPER; \
	RET

KERNEL(·andAVX2, V_AND, S_AND)
KERNEL(·andNotAVX2, V_ANDNOT, S_ANDNOT)
KERNEL(·orAVX2, V_OR, S_OR)
KERNEL(·xorAVX2, V_XOR, S_XOR)
KERNEL(·nandAVX2, V_NAND, S_NAND)
KERNEL(·norAVX2, V_NOR, S_NOR)
KERNEL(·xnorAVX2, V_XNOR, S_XNOR)
KERNEL(·orNotAVX2, V_ORNOT, S_ORNOT)
KERNEL(·notAVX2, V_NOT, S_NOT)
