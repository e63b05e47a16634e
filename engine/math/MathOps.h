// Device-dispatching math primitives shared by layers and optimizers. Each has
// a CPU implementation (MathOps.cpp; OpenBLAS for GEMM) and a CUDA twin
// (MathOps.cu; cuBLAS for GEMM). Shapes are checked; misuse throws.
#pragma once
#include <memory>

#include "engine/math/Buffer.h"

namespace paddle {
namespace math {

// The arithmetic of the calling thread's GEMMs: the operands rounded to bfloat16 (bf16) or
// IEEE half (fp16, GPUs only) and the products summed in fp32 (CPU: GemmBf16.h; GPU: cuBLAS
// GemmEx). A layer's owner sets it around the layer's forward and backward (Layer::runForward).
enum class Precision { kFp32 = 0, kBf16 = 1, kFp16 = 2 };
Precision gemmPrecision();
class GemmPrecisionScope {
 public:
  explicit GemmPrecisionScope(Precision p);
  ~GemmPrecisionScope();
  GemmPrecisionScope(const GemmPrecisionScope&) = delete;
  GemmPrecisionScope& operator=(const GemmPrecisionScope&) = delete;

 private:
  Precision saved_;
};

// C = alpha * op(A) * op(B) + beta * C   (row-major; C must already have its shape)
void gemm(const Matrix& A, bool transA, const Matrix& B, bool transB, Matrix& C,
          float alpha = 1.0f, float beta = 0.0f);

class PackedBf16B;
// The right operand op(B) of many products in a row (a recurrent weight over the steps of a
// batch). In bf16 on the CPU it is rounded and packed once, by set(); otherwise products use B
// as it is. The results are the bits of gemm(A, false, B, transB, C) under the precision of
// set() (also on the pool's threads, whose own precision is fp32). B must not change between
// set() and the last product; the packing's memory is kept for the next set().
class ReusedOperand {
 public:
  ReusedOperand();
  ~ReusedOperand();
  void set(const Matrix& B, bool transB);
  // Rounded and packed (bf16 on the CPU): then each element of a product's C has the same bits
  // however the rows of A are split between calls, so callers may split them as they like.
  bool packed() const { return packed_; }

 private:
  friend void gemm(const Matrix&, const ReusedOperand&, Matrix&, float, float);
  Matrix B_;
  bool transB_ = false, packed_ = false;
  std::unique_ptr<PackedBf16B> bf16_;
};

// C = alpha * A * op(B) + beta * C, op(B) given by B.set().
void gemm(const Matrix& A, const ReusedOperand& B, Matrix& C, float alpha = 1.0f, float beta = 0.0f);

// C = relu?(A * B + bias) in one pass when B is a weight packed for the calling thread (a
// Predictor's forward, GemmPacked.h) and the product runs in fp32 on the CPU: bias [1, N] or
// null, relu applied when set. False (C untouched) otherwise: the caller takes the usual path.
bool gemmPackedBiasRelu(const Matrix& A, const Matrix& B, const Matrix* bias, bool relu, Matrix& C);

// m[i, :] = beta * m[i, :] + scale * row[0, :] for every row i (beta 0: m is not read)
void addRowVector(Matrix& m, const Matrix& row, float scale = 1.0f, float beta = 1.0f);

// out[0, :] = beta * out[0, :] + sum_i m[i, :]
void sumRows(const Matrix& m, Matrix& out, float beta = 1.0f);

// m = 0 (on the CPU a large m is cleared in chunks across the pool)
void zero(Matrix& m);

// y = alpha * x + beta * y (element-wise; equal sizes)
void axpby(float alpha, const Matrix& x, float beta, Matrix& y);

// y *= x (element-wise; equal sizes)
void dotMul(Matrix& y, const Matrix& x);

// dst[:, dstCol, +width) = beta * dst[:, dstCol, +width) + src[:, srcCol, +width) (equal heights)
void addColumns(Matrix& dst, size_t dstCol, const Matrix& src, size_t srcCol, size_t width, float beta = 1.0f);

// out[r] += x[r, :] . y[r, :] for every row r, where out points into memory on the operands'
// device (per-row scalar weights' gradients). Each row sums in 16 interleaved lanes.
void addRowDots(const Matrix& x, const Matrix& y, float* out);

// *out += sum_i x_i * y_i, where out points into memory on the operands' device
// (a scalar weight's gradient, a squared norm). Sums in double, chunk by chunk.
void addDot(const Matrix& x, const Matrix& y, float* out);

// Whether gemm(A, B, C, 1, 1) gives, element by element, C + gemm(A, B, P, 1, 0) in one rounding
// (so a caller may add C to the product P itself, in any order) for A of `depth` columns: a
// packed bf16 B whose depth fits one block of k (GemmBf16.h adds each block's sums to C apart).
bool addsProductOnce(const ReusedOperand& B, size_t depth);

}  // namespace math
}  // namespace paddle
