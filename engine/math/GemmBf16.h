// Mixed-precision GEMM on the CPU: fp32 operands rounded to bfloat16 (round to nearest
// even) while they are packed, products accumulated in fp32 with AVX-512 BF16's
// VDPBF16PS, the result fp32. The engine calls it through math::gemm when the calling
// layer computes in bf16 (see Precision.h); nothing else changes for the caller.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace paddle {
namespace math {

// Whether this CPU runs VDPBF16PS (AVX512_BF16) and the build compiled the kernels.
bool bf16GemmSupported();

// C[M, N] = alpha * op(A) * op(B) + beta * C, row-major, one thread; op(X) = X^T when trans.
// Each C element sums its K products in a fixed order (pairs of k, in blocks of 384 k),
// whatever range of C a call computes: the same bits at any thread count.
// The block of k (384): a product of depth K <= it adds beta * C to each element's sum of
// products in one rounding; a deeper one adds each block's sums to C in turn.
size_t bf16DepthBlock();
void gemmBf16(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
              const float* B, size_t ldb, float beta, float* C, size_t ldc);

// B [K, N] (or B^T stored [N, K] when transB) rounded and packed once for many products with
// it: a recurrent weight, used by every step of a sequence batch. Products through it give
// the same bits as gemmBf16 with the unpacked B.
class PackedBf16B {
 public:
  void pack(bool transB, size_t K, size_t N, const float* B, size_t ldb);
  size_t rows() const { return K_; }
  size_t cols() const { return N_; }
  // Columns per panel: a product's column ranges start at multiples of it.
  static size_t panelColumns();
  // Pairs of k of block pc (k from pc * blockK) for panel q.
  const uint32_t* panel(size_t block, size_t q) const;

 private:
  size_t K_ = 0, N_ = 0;
  std::vector<uint32_t> data_;
};

// C[M, j0..j1) = alpha * A * B[:, j0..j1) + beta * C[M, j0..j1), A [M, K] row-major, one
// thread; j0 a multiple of panelColumns(), j1 <= B.cols().
void gemmBf16Packed(size_t M, float alpha, const float* A, size_t lda, const PackedBf16B& B, size_t j0, size_t j1,
                    float beta, float* C, size_t ldc);

// A^T (stored [K, M]) rounded and packed once for the column blocks of one product that
// several threads compute (a weight gradient X^T * dY over all tokens), instead of once per
// thread. Products through it give the same bits as gemmBf16(transA = true, ...).
class PackedBf16TransA {
 public:
  // Sizes the panels of A^T [M, K]; packPanels then fills them (disjoint ranges may run at once).
  void reshape(size_t M, size_t K);
  size_t panelCount() const;
  // Panels [r0, r1) (of tileRows(M) rows each) of every block of k, from A [K, M] (lda).
  void packPanels(const float* A, size_t lda, size_t r0, size_t r1);
  size_t rows() const { return M_; }
  size_t depth() const { return K_; }
  const uint32_t* panel(size_t block, size_t r) const;

 private:
  size_t M_ = 0, K_ = 0, mr_ = 8;
  std::vector<uint32_t> data_;
};

// gemmBf16(true, transB, A.rows(), N, A.depth(), alpha, A, ...) with A packed.
void gemmBf16TransA(const PackedBf16TransA& A, bool transB, size_t N, float alpha, const float* B, size_t ldb,
                    float beta, float* C, size_t ldc);

// x rounded to the nearest bfloat16 (ties to even; NaN stays NaN), as the kernels round.
float roundToBf16(float x);

}  // namespace math
}  // namespace paddle
