#include "textflag.h"

// The int8 products of package usenet in AVX2 (see kernel_amd64.go). A
// weight row pair holds, for each column, the int16 weights of two
// consecutive input rows side by side; an activation pair the two uint8
// activations of the same rows widened to int16. VPMADDWD multiplies them
// and adds each column's two products into one int32: exact, as
// |Σ| <= k·255·128 < 2^31 for every k below 65,536.

// func madd4x16(w *int16, wstride int, pairs int, q *uint32, qstride int, out *int32, ostride int)
TEXT ·madd4x16(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ wstride+8(FP), DX
	MOVQ pairs+16(FP), CX
	MOVQ q+24(FP), DI
	MOVQ qstride+32(FP), R8
	MOVQ out+40(FP), R9
	MOVQ ostride+48(FP), BX
	LEAQ (DI)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	LEAQ (R11)(R8*1), R12
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ AX, AX
	TESTQ CX, CX
	JEQ done4

loop4:
	VMOVDQU (SI), Y8
	VMOVDQU 32(SI), Y9
	VPBROADCASTD (DI)(AX*1), Y10
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y0, Y0
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y1, Y1
	VPBROADCASTD (R10)(AX*1), Y10
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y2, Y2
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y3, Y3
	VPBROADCASTD (R11)(AX*1), Y10
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y4, Y4
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y5, Y5
	VPBROADCASTD (R12)(AX*1), Y10
	VPMADDWD Y8, Y10, Y11
	VPADDD Y11, Y6, Y6
	VPMADDWD Y9, Y10, Y12
	VPADDD Y12, Y7, Y7
	ADDQ DX, SI
	ADDQ $4, AX
	DECQ CX
	JNZ loop4

done4:
	VMOVDQU Y0, (R9)
	VMOVDQU Y1, 32(R9)
	ADDQ BX, R9
	VMOVDQU Y2, (R9)
	VMOVDQU Y3, 32(R9)
	ADDQ BX, R9
	VMOVDQU Y4, (R9)
	VMOVDQU Y5, 32(R9)
	ADDQ BX, R9
	VMOVDQU Y6, (R9)
	VMOVDQU Y7, 32(R9)
	VZEROUPPER
	RET

// func madd1x16(w *int16, wstride int, pairs int, q *uint32, out *int32)
TEXT ·madd1x16(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ wstride+8(FP), DX
	MOVQ pairs+16(FP), CX
	MOVQ q+24(FP), DI
	MOVQ out+32(FP), R9
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	TESTQ CX, CX
	JEQ done1

loop1:
	VPBROADCASTD (DI), Y10
	VPMADDWD (SI), Y10, Y11
	VPADDD Y11, Y0, Y0
	VPMADDWD 32(SI), Y10, Y12
	VPADDD Y12, Y1, Y1
	ADDQ DX, SI
	ADDQ $4, DI
	DECQ CX
	JNZ loop1

done1:
	VMOVDQU Y0, (R9)
	VMOVDQU Y1, 32(R9)
	VZEROUPPER
	RET
