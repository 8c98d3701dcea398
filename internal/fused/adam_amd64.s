// adamAVX2: four float32 elements per iteration, widened to float64 in ymm
// lanes, with the operations of adamGo in its order (VMULPD, VADDPD,
// VSUBPD, VSQRTPD, VDIVPD are correctly rounded, as the scalar ones; no
// FMA), narrowed back with VCVTPD2PS (round to nearest, as Go's float32()).

#include "textflag.h"

// Offsets of Adam's fields.
#define B1 0
#define OMB1 8
#define B2 16
#define OMB2 24
#define L2 32
#define DECAY 40
#define STEP 48
#define SQRTBC2 56
#define EPS 64

// func adamAVX2(p, grad, m, v *float32, n int, c *Adam)
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSD B1(AX), Y8
	VBROADCASTSD OMB1(AX), Y9
	VBROADCASTSD B2(AX), Y10
	VBROADCASTSD OMB2(AX), Y11
	VBROADCASTSD L2(AX), Y12
	VBROADCASTSD DECAY(AX), Y13
	VBROADCASTSD STEP(AX), Y14
	VBROADCASTSD SQRTBC2(AX), Y15
	XORQ BX, BX
	TESTQ CX, CX
	JEQ done

loop:
	VCVTPS2PD (DI)(BX*4), Y0   // pj
	VCVTPS2PD (SI)(BX*4), Y1   // g
	VMULPD Y0, Y12, Y2         // L2*pj
	VADDPD Y2, Y1, Y1          // gj = g + L2*pj
	VMULPD Y13, Y0, Y0         // pj *= Decay
	VCVTPS2PD (R8)(BX*4), Y2   // m
	VMULPD Y2, Y8, Y2          // B1*m
	VMULPD Y1, Y9, Y3          // (1-B1)*gj
	VADDPD Y3, Y2, Y2          // mj
	VCVTPS2PD (R9)(BX*4), Y3   // v
	VMULPD Y3, Y10, Y3         // B2*v
	VMULPD Y1, Y11, Y4         // (1-B2)*gj
	VMULPD Y1, Y4, Y4          // ((1-B2)*gj)*gj
	VADDPD Y4, Y3, Y3          // vj
	VCVTPD2PSY Y2, X4
	VMOVUPS X4, (R8)(BX*4)     // m = float32(mj)
	VCVTPD2PSY Y3, X4
	VMOVUPS X4, (R9)(BX*4)     // v = float32(vj)
	VSQRTPD Y3, Y3             // √vj
	VDIVPD Y15, Y3, Y3         // √vj/SqrtBC2
	VBROADCASTSD EPS(AX), Y4
	VADDPD Y4, Y3, Y3          // + Eps
	VMULPD Y2, Y14, Y2         // StepSize*mj
	VDIVPD Y3, Y2, Y2          // (StepSize*mj)/(...)
	VSUBPD Y2, Y0, Y0          // pj - ...
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, (DI)(BX*4)
	ADDQ $4, BX
	CMPQ BX, CX
	JLT loop

done:
	VZEROUPPER
	RET
