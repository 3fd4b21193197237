#include "textflag.h"

// The int8 products of package usenet in AVX2 (see kernel_amd64.go),
// read from the model's int8 weights [k, n] where they lie. Two weight
// rows' 16 columns are widened to int16 and interleaved column by column
// (within each 128-bit half, so the accumulators hold columns 0-3, 8-11
// and 4-7, 12-15, put back in order at the end); an activation pair is the
// same two rows' activations as int16; VPMADDWD multiplies them and adds
// each column's two products into one int32: exact, as every product is
// at most 255·128 in size and |Σ| <= k·255·128 < 2^31 for k below 65,536.

// func madd4x16(w *byte, wstride int, pairs int, q *uint32, qstride int, out *int32, ostride int)
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
	JEQ done

loop:
	VPMOVSXBW (SI), Y8
	VPMOVSXBW (SI)(DX*1), Y9
	VPUNPCKLWD Y9, Y8, Y13
	VPUNPCKHWD Y9, Y8, Y14
	VPBROADCASTD (DI)(AX*1), Y10
	VPMADDWD Y13, Y10, Y11
	VPADDD Y11, Y0, Y0
	VPMADDWD Y14, Y10, Y12
	VPADDD Y12, Y1, Y1
	VPBROADCASTD (R10)(AX*1), Y10
	VPMADDWD Y13, Y10, Y11
	VPADDD Y11, Y2, Y2
	VPMADDWD Y14, Y10, Y12
	VPADDD Y12, Y3, Y3
	VPBROADCASTD (R11)(AX*1), Y10
	VPMADDWD Y13, Y10, Y11
	VPADDD Y11, Y4, Y4
	VPMADDWD Y14, Y10, Y12
	VPADDD Y12, Y5, Y5
	VPBROADCASTD (R12)(AX*1), Y10
	VPMADDWD Y13, Y10, Y11
	VPADDD Y11, Y6, Y6
	VPMADDWD Y14, Y10, Y12
	VPADDD Y12, Y7, Y7
	LEAQ (SI)(DX*2), SI
	ADDQ $4, AX
	DECQ CX
	JNZ loop

done:
	// Columns back in order: [0-3 | 8-11], [4-7 | 12-15] -> [0-7], [8-15].
	VPERM2I128 $0x20, Y1, Y0, Y13
	VPERM2I128 $0x31, Y1, Y0, Y14
	VMOVDQU Y13, (R9)
	VMOVDQU Y14, 32(R9)
	ADDQ BX, R9
	VPERM2I128 $0x20, Y3, Y2, Y13
	VPERM2I128 $0x31, Y3, Y2, Y14
	VMOVDQU Y13, (R9)
	VMOVDQU Y14, 32(R9)
	ADDQ BX, R9
	VPERM2I128 $0x20, Y5, Y4, Y13
	VPERM2I128 $0x31, Y5, Y4, Y14
	VMOVDQU Y13, (R9)
	VMOVDQU Y14, 32(R9)
	ADDQ BX, R9
	VPERM2I128 $0x20, Y7, Y6, Y13
	VPERM2I128 $0x31, Y7, Y6, Y14
	VMOVDQU Y13, (R9)
	VMOVDQU Y14, 32(R9)
	VZEROUPPER
	RET
