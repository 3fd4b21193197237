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

// ROW adds to acc0 and acc1 (columns 0-3, 8-11 and 4-7, 12-15) the
// products of the activation pair at (q)(AX) with the widened weights in
// Y13 and Y14.
#define ROW(q, acc0, acc1) \
	VPBROADCASTD (q)(AX*1), Y10 \
	VPMADDWD     Y13, Y10, Y11  \
	VPADDD       Y11, acc0, acc0 \
	VPMADDWD     Y14, Y10, Y12  \
	VPADDD       Y12, acc1, acc1

// STORE writes acc0 and acc1 as 16 int32 in column order at (R9).
#define STORE(acc0, acc1) \
	VPERM2I128 $0x20, acc1, acc0, Y13 \
	VPERM2I128 $0x31, acc1, acc0, Y14 \
	VMOVDQU    Y13, (R9)               \
	VMOVDQU    Y14, 32(R9)

loop:
	VPMOVSXBW  (SI), Y8
	VPMOVSXBW  (SI)(DX*1), Y9
	VPUNPCKLWD Y9, Y8, Y13
	VPUNPCKHWD Y9, Y8, Y14
	ROW(DI, Y0, Y1)
	ROW(R10, Y2, Y3)
	ROW(R11, Y4, Y5)
	ROW(R12, Y6, Y7)
	LEAQ       (SI)(DX*2), SI
	ADDQ       $4, AX
	DECQ       CX
	JNZ        loop

done:
	// Columns back in order: [0-3 | 8-11], [4-7 | 12-15] -> [0-7], [8-15].
	STORE(Y0, Y1)
	ADDQ BX, R9
	STORE(Y2, Y3)
	ADDQ BX, R9
	STORE(Y4, Y5)
	ADDQ BX, R9
	STORE(Y6, Y7)
	VZEROUPPER
	RET
