// fp32 GEMM for inference with a weight packed once: a Predictor's weights never change, so
// each B of a product A * B that is a weight is laid out once in column panels the AVX-512
// micro-kernel streams (onnxruntime's MLAS prepacks B the same way), and each call packs
// nothing. Only a Predictor's forward uses it (PackedWeightsScope); training keeps OpenBLAS.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace paddle {
namespace math {

// Whether products run on the packed kernels here: an AVX-512F CPU, a build that compiled them,
// and not switched off (setPackedGemmEnabled(false), or PADDLE_PACKED_GEMM=0 in the environment,
// read on each call: a Predictor asks when it is created).
bool packedGemmSupported();
// Switches the packed kernels off (false) or back on where the CPU has them; for tests.
void setPackedGemmEnabled(bool on);

// B [K, N] (row-major, row stride ldb) in panels of kPanel columns: panel q holds B[k][q * kPanel + j]
// at panel(q)[k * kPanel + j], zeros past column N.
class PackedMatrix {
 public:
  static constexpr size_t kPanel = 32;
  PackedMatrix(const float* B, size_t K, size_t N, size_t ldb);
  size_t rows() const { return K_; }
  size_t cols() const { return N_; }
  bool finite() const { return finite_; }  // no value infinite or NaN
  const float* panel(size_t q) const { return data_.get() + q * K_ * kPanel; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  size_t K_, N_;
  bool finite_ = true;
  std::unique_ptr<float, Free> data_;
};

// What a product adds to C on its way out, while C's tile is still in registers (one pass over C
// instead of three): bias[j] to column j (null: nothing), then relu (x < 0: 0) when set. An fc
// layer's inference forward (a Predictor's) uses it.
// Then, with rowMean (a folded batch norm per row of C, a conv's filter: what a conv's
// finishChannels does), x = (x - rowMean[i]) + rowShift[i] (null: + 0.0f), relu'd when rowRelu; then
// with residual, x = residual[i * ldr + j] + x, relu'd when sumRelu (a residual sum).
struct GemmEpilogue {
  const float* bias = nullptr;  // the N values of the columns, indexed from column 0
  bool relu = false;
  const float* rowMean = nullptr;  // the M values of the rows, indexed from row 0
  const float* rowShift = nullptr;
  bool rowRelu = false;
  const float* residual = nullptr;  // [M, >= N] from C's (0, 0), row stride ldr
  size_t ldr = 0;
  bool sumRelu = false;
  bool any() const { return bias || relu || rowMean; }
};

// C[M, N] = alpha * A * B + beta * C, A [M, K] row-major (row stride lda), one thread, for the
// columns [j0, j1) of C (j0 a multiple of kPanel; beta 0: C is not read), then the epilogue (K > 0).
// Each C element sums its K products in one fixed order (k ascending, blocks of 1024 added to C
// in turn; the bias after the last) whatever rows and columns a call computes: the same bits at
// any thread count. Where A is mostly zeros (a relu's outputs), rows skip them: the same bits
// (PADDLE_SKIP_ZEROS, GemmPacked.cpp).
void gemmPacked(size_t M, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const PackedMatrix& B,
                float beta, float* C, size_t ldc, const GemmEpilogue& epilogue = GemmEpilogue{});

// C[M, columns j0..j1) = alpha * A * B + beta * C with B [K, >= j1] row-major as it lies (row
// stride ldb), on the same kernels (j0 a multiple of kPanel; k in blocks of 256, which keep such a
// B's block in L1).
// aTiles: A's whole 8-row tiles as packedWeightRowTiles gives them (null: A's rows only).
void gemmRowMajor(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                  size_t ldb, float beta, float* C, size_t ldc, const float* aTiles = nullptr);

// The same with row k of B at B + rowOffset[k] (its columns contiguous from there): a padded image
// read where it lies as the unfolded image of a stride-1 conv (rows: (channel, ky, kx) shifts).
void gemmRowOffsets(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                    const ptrdiff_t* rowOffset, float beta, float* C, size_t ldc);

// The same with column j of B (output pixel j / outW, j % outW) at B + rowOffset[k] + (j / outW) *
// rowStride + j % outW: a padded image read where it lies with no extra columns, C in the output's
// own layout (outW a multiple of 16, or 8; j1 a multiple of 16). The same sums as gemmRowMajor's.
// Then the epilogue (null: none), K > 0. With taps (outW a multiple of 16), B is the image as it lies,
// unpadded, and lane l of the vector of columns [16u, 16u + 16) reads row k where bit l of
// masks[maskRow[k] + u] is set, 0 elsewhere (its pixel outside the image): a padded copy's values
// without the copy.
struct ImageTaps {
  const uint16_t* masks;
  const int* maskRow;  // per row of B
};
void gemmImageRows(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                   const ptrdiff_t* rowOffset, size_t outW, size_t rowStride, float beta, float* C, size_t ldc,
                   const GemmEpilogue* epilogue = nullptr, const float* aTiles = nullptr,
                   const ImageTaps* taps = nullptr);

// The constant weights of one model, each packed on its first use (under a lock; the packed
// copies live as long as this object and are shared by every thread).
class PackedWeights {
 public:
  // Registers a weight [rows, cols] (row-major, contiguous) whose values stay as they are.
  void add(const float* data, size_t rows, size_t cols);
  // The packed copy of B [K, N] (row stride ldb) when B is a registered weight of that shape.
  const PackedMatrix* find(const float* B, size_t K, size_t N, size_t ldb);
  // The whole 8-row tiles of a registered weight read as A [M, K] (contiguous), tile t's value of row
  // 8t + i at k at [(t * K + k) * 8 + i], made on the first use of that shape; null: not registered.
  const float* rowTiles(const float* A, size_t M, size_t K);
  // Whether A [rows, cols] (contiguous: ld == cols) lies within a registered weight from its start.
  bool holds(const float* A, size_t rows, size_t cols, size_t ld);

 private:
  struct Entry {
    size_t rows, cols;
    std::unique_ptr<PackedMatrix> packed;
    size_t tileRows = 0, tileCols = 0;
    std::vector<float> tiles;
  };
  std::mutex mutex_;
  std::unordered_map<const float*, Entry> entries_;
};

// Makes `weights` the calling thread's packed weights until the scope ends (null: none).
class PackedWeightsScope {
 public:
  explicit PackedWeightsScope(PackedWeights* weights);
  ~PackedWeightsScope();
  PackedWeightsScope(const PackedWeightsScope&) = delete;
  PackedWeightsScope& operator=(const PackedWeightsScope&) = delete;

 private:
  PackedWeights* saved_;
};

// Whether a product with A [rows, cols] (contiguous) on the left runs on these kernels in this
// thread: A lies in one of its packed weights (a Predictor's forward) and the kernels run here.
// Such products sum each element in one order whatever columns a call holds.
bool packedWeightOnLeft(const float* A, size_t rows, size_t cols);
// The calling thread's row tiles of such an A (PackedWeights::rowTiles; null: none): the same sums,
// the broadcasts of a tile of 8 rows from one pointer.
const float* packedWeightRowTiles(const float* A, size_t rows, size_t cols);

// C = alpha * A * B + beta * C (neither transposed, row-major, C [M, N]) on these kernels, across
// the engine's pool, when B (packed) or A (as it lies) is one of the calling thread's weights and
// the kernels run here; false (nothing done) otherwise. With an epilogue, only B packed and K > 0.
bool gemmWithPackedWeight(size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda, const float* B,
                          size_t ldb, float beta, float* C, size_t ldc, const GemmEpilogue* epilogue = nullptr);

}  // namespace math
}  // namespace paddle
