// Mixed-precision GEMM on the CPU: fp32 operands rounded to bfloat16 (round to nearest
// even) while they are packed, products accumulated in fp32 with AVX-512 BF16's
// VDPBF16PS, the result fp32. The engine calls it through math::gemm when the calling
// layer computes in bf16 (see Precision.h); nothing else changes for the caller.
#pragma once
#include <cstddef>
#include <cstdint>

namespace paddle {
namespace math {

// Whether this CPU runs VDPBF16PS (AVX512_BF16) and the build compiled the kernels.
bool bf16GemmSupported();

// C[M, N] = alpha * op(A) * op(B) + beta * C, row-major, one thread; op(X) = X^T when trans.
// Each C element sums its K products in a fixed order (pairs of k, in blocks of 384 k),
// whatever range of C a call computes: the same bits at any thread count.
void gemmBf16(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
              const float* B, size_t ldb, float beta, float* C, size_t ldc);

// x rounded to the nearest bfloat16 (ties to even; NaN stays NaN), as the kernels round.
float roundToBf16(float x);

}  // namespace math
}  // namespace paddle
