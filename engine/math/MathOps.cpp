#include "engine/math/MathOps.h"

#include <cblas.h>

#include <cstring>

#include "engine/Errors.h"
#include "engine/math/GemmBf16.h"
#include "engine/math/GemmPacked.h"
#include "engine/math/GpuOps.h"
#include "engine/math/Kernel.h"
#include "engine/math/ThreadPool.h"

namespace paddle {
namespace math {

namespace {
thread_local Precision tGemmPrecision = Precision::kFp32;
}  // namespace

Precision gemmPrecision() { return tGemmPrecision; }
GemmPrecisionScope::GemmPrecisionScope(Precision p) : saved_(tGemmPrecision) { tGemmPrecision = p; }
GemmPrecisionScope::~GemmPrecisionScope() { tGemmPrecision = saved_; }

namespace {
void sameDevice(const Matrix& a, const Matrix& b, const char* op) {
  PADDLE_ENFORCE(a.useGpu() == b.useGpu(), DataError, op, ": operands live on different devices");
#ifndef WITH_CUDA
  if (a.useGpu()) throwNoCuda(op);
#endif
}

// Multiply-adds per chunk below which a product is not worth splitting (~20 us).
constexpr size_t kGemmGrain = size_t(1) << 18;

void blasGemm(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
              const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  // The engine's pool is the one source of threads: OpenBLAS runs one per call.
  static const bool oneBlasThread = (scipy_openblas_set_num_threads(1), true);
  (void)oneBlasThread;
  scipy_cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, M, N, K,
                    alpha, A, lda, B, ldb, beta, C, ldc);
}

// OpenBLAS multiplies a product of at most kSmallGemm multiply-adds (in which B is not
// transposed) with its small-matrix kernels, which skip packing the operands: for a short A
// (a conv layer's filters, LeNet's [50 x 500]; a recurrent step's rows) columns of C in blocks
// that small run ~10-25% faster than the packed product of the whole (0.3.31, AVX-512), while
// K <= 2048 (at K = 4000, 32-column blocks ran 3x slower).
constexpr double kSmallGemm = 1e6;
constexpr size_t kSmallGemmMaxK = 2048;
// Columns per OpenBLAS call of a product with A [M, K] (a multiple of 32), or 0: the whole.
size_t smallGemmColumns(bool transB, size_t M, size_t N, size_t K) {
  const double mk = static_cast<double>(M) * static_cast<double>(K);
  if (transB || K > kSmallGemmMaxK || mk * static_cast<double>(N) <= kSmallGemm) return 0;
  return static_cast<size_t>(kSmallGemm / (mk * 32)) * 32;
}

// A large product splits C into blocks of columns (of 16, whole vectors) or of rows,
// whichever side is longer; each block is one OpenBLAS call on its own thread (or several
// small ones: smallGemmColumns).
void cpuGemm(const Matrix& A, bool transA, const Matrix& B, bool transB, Matrix& C, size_t M, size_t N,
             size_t K, float alpha, float beta) {
  const float *a = A.data(), *b = B.data();
  float* c = C.data();
  const size_t lda = A.width(), ldb = B.width(), ldc = C.width();
  const bool bf16 = gemmPrecision() == Precision::kBf16 && bf16GemmSupported();
  // rows [i0, i1) x columns [j0, j1) of C
  auto block = [&](size_t i0, size_t i1, size_t j0, size_t j1) {
    if (bf16) {
      gemmBf16(transA, transB, i1 - i0, j1 - j0, K, alpha, transA ? a + i0 : a + i0 * lda, lda,
               transB ? b + j0 * ldb : b + j0, ldb, beta, c + i0 * ldc + j0, ldc);
      return;
    }
    const size_t m = i1 - i0, small = smallGemmColumns(transB, m, j1 - j0, K), width = small ? small : j1 - j0;
    for (; j0 < j1; j0 += width) {
      blasGemm(transA, transB, m, std::min(width, j1 - j0), K, alpha, transA ? a + i0 : a + i0 * lda, lda,
               transB ? b + j0 * ldb : b + j0, ldb, beta, c + i0 * ldc + j0, ldc);
    }
  };
  const size_t columnGrain = kGemmGrain / (M * K * 16) + 1;
  if (bf16 && transA && N >= M && parallelChunks((N + 15) / 16, columnGrain) > 1) {
    // A^T (a weight gradient's X^T over all tokens) packed once, by panels on all threads,
    // rather than whole on each thread for its columns
    thread_local PackedBf16TransA callersPack;
    PackedBf16TransA& packedA = callersPack;  // (a thread_local named in a lambda is the pool thread's own)
    packedA.reshape(M, K);
    parallelFor(packedA.panelCount(), 1, [&](size_t r0, size_t r1) { packedA.packPanels(a, lda, r0, r1); });
    parallelFor((N + 15) / 16, columnGrain, [&](size_t u0, size_t u1) {
      const size_t j0 = u0 * 16, j1 = std::min(N, u1 * 16);
      gemmBf16TransA(packedA, transB, j1 - j0, alpha, transB ? b + j0 * ldb : b + j0, ldb, beta, c + j0, ldc);
    });
    return;
  }
  if (N >= M) {
    parallelFor((N + 15) / 16, columnGrain,
                [&](size_t u0, size_t u1) { block(0, M, u0 * 16, std::min(N, u1 * 16)); });
  } else {
    parallelFor(M, kGemmGrain / (N * K) + 1, [&](size_t i0, size_t i1) { block(i0, i1, 0, N); });
  }
}
}  // namespace

void gemm(const Matrix& A, bool transA, const Matrix& B, bool transB, Matrix& C, float alpha,
          float beta) {
  size_t M = transA ? A.width() : A.height();
  size_t K = transA ? A.height() : A.width();
  size_t KB = transB ? B.width() : B.height();
  size_t N = transB ? B.height() : B.width();
  PADDLE_ENFORCE(K == KB && C.height() == M && C.width() == N, DataError,
                 "gemm shape mismatch: ", shapeStr(A), (transA ? "^T" : ""), " * ", shapeStr(B),
                 (transB ? "^T" : ""), " -> ", shapeStr(C));
  sameDevice(A, B, "gemm");
  sameDevice(A, C, "gemm");
  if (M == 0 || N == 0) return;
  if (K == 0) {  // empty inner dimension: C = beta * C
    axpby(0.0f, C, beta, C);
    return;
  }
  if (C.useGpu()) {
#ifdef WITH_CUDA
    gpu::gemm(A.data(), transA, B.data(), transB, C.data(), M, N, K, alpha, beta, static_cast<int>(gemmPrecision()));
#endif
    return;
  }
  // A Predictor's weights packed once (GemmPacked.h); elsewhere this does nothing
  if (!transA && !transB && gemmPrecision() == Precision::kFp32 &&
      gemmWithPackedWeight(M, N, K, alpha, A.data(), A.width(), B.data(), B.width(), beta, C.data(), C.width())) {
    return;
  }
  cpuGemm(A, transA, B, transB, C, M, N, K, alpha, beta);
}

bool gemmPackedBiasRelu(const Matrix& A, const Matrix& B, const Matrix* bias, bool relu, Matrix& C) {
  const size_t M = A.height(), K = A.width(), N = B.width();
  if (C.useGpu() || A.useGpu() || B.useGpu() || gemmPrecision() != Precision::kFp32) return false;
  if (M == 0 || N == 0 || K == 0 || B.height() != K || C.height() != M || C.width() != N) return false;
  if (bias && (bias->useGpu() || bias->size() != N)) return false;
  GemmEpilogue epilogue;
  epilogue.bias = bias ? bias->data() : nullptr;
  epilogue.relu = relu;
  return gemmWithPackedWeight(M, N, K, 1.0f, A.data(), A.width(), B.data(), B.width(), 0.0f, C.data(), C.width(),
                              &epilogue);
}

ReusedOperand::ReusedOperand() = default;
ReusedOperand::~ReusedOperand() = default;

void ReusedOperand::set(const Matrix& B, bool transB) {
  B_ = B;
  transB_ = transB;
  packed_ = !B.useGpu() && B.size() && gemmPrecision() == Precision::kBf16 && bf16GemmSupported();
  if (!packed_) return;
  if (!bf16_) bf16_.reset(new PackedBf16B);
  bf16_->pack(transB, transB ? B.width() : B.height(), transB ? B.height() : B.width(), B.data(), B.width());
}

void gemm(const Matrix& A, const ReusedOperand& B, Matrix& C, float alpha, float beta) {
  // (the precision of set(): pool threads that run a caller's chunks keep their own fp32)
  if (!B.packed_ || A.useGpu() || C.useGpu()) {
    gemm(A, false, B.B_, B.transB_, C, alpha, beta);
    return;
  }
  const PackedBf16B& b = *B.bf16_;
  const size_t M = A.height(), N = b.cols(), K = b.rows();
  PADDLE_ENFORCE(A.width() == K && C.height() == M && C.width() == N, DataError, "gemm shape mismatch: ",
                 shapeStr(A), " * packed [", K, " x ", N, "] -> ", shapeStr(C));
  if (M == 0) return;
  // chunks of whole panels of B's columns, each packing A once
  const size_t panel = PackedBf16B::panelColumns(), panels = (N + panel - 1) / panel;
  const float* a = A.data();
  float* c = C.data();
  const size_t lda = A.width(), ldc = C.width();
  parallelFor(panels, kGemmGrain / (M * K * panel) + 1, [&](size_t q0, size_t q1) {
    gemmBf16Packed(M, alpha, a, lda, b, q0 * panel, std::min(N, q1 * panel), beta, c, ldc);
  });
}

void addRowVector(Matrix& m, const Matrix& row, float scale, float beta) {
  PADDLE_ENFORCE(row.size() == m.width(), DataError, "addRowVector: row of ", row.size(),
                 " values for a matrix of width ", m.width());
  sameDevice(m, row, "addRowVector");
  if (m.useGpu()) {
#ifdef WITH_CUDA
    gpu::addRowVector(m.data(), row.data(), m.height(), m.width(), scale, beta);
#endif
    return;
  }
  const size_t w = m.width();
  const float* __restrict r = row.data();
  float* data = m.data();
  parallelFor(m.height(), kParallelGrain / std::max<size_t>(w, 1) + 1, [=](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      float* __restrict x = data + i * w;
      if (beta == 0.0f) {
        for (size_t j = 0; j < w; ++j) x[j] = scale * r[j];
      } else {
        for (size_t j = 0; j < w; ++j) x[j] = beta * x[j] + scale * r[j];
      }
    }
  });
}

void sumRows(const Matrix& m, Matrix& out, float beta) {
  PADDLE_ENFORCE(out.size() == m.width(), DataError, "sumRows: output of ", out.size(),
                 " values for a matrix of width ", m.width());
  sameDevice(m, out, "sumRows");
  if (m.useGpu()) {
#ifdef WITH_CUDA
    gpu::sumRows(m.data(), out.data(), m.height(), m.width(), beta);
#endif
    return;
  }
  // Threads take blocks of columns, each summed over the rows in row order: the same
  // bits at any thread count.
  const size_t w = m.width(), h = m.height();
  const float* data = m.data();
  float* o = out.data();
  parallelFor(w, kParallelGrain / std::max<size_t>(h, 1) + 1, [=](size_t j0, size_t j1) {
    float* __restrict oj = o + j0;
    const size_t cols = j1 - j0;
    for (size_t j = 0; j < cols; ++j) oj[j] *= beta;
    for (size_t i = 0; i < h; ++i) {
      const float* __restrict x = data + i * w + j0;
      for (size_t j = 0; j < cols; ++j) oj[j] += x[j];
    }
  });
}

void zero(Matrix& m) {
  if (m.useGpu()) return m.zero();
  float* d = m.data();
  // memset moves ~10 GB/s per core: a chunk of 1 MB is ~100 us
  parallelFor(m.size(), size_t(1) << 18, [=](size_t b, size_t e) { std::memset(d + b, 0, (e - b) * sizeof(float)); });
}

void axpby(float alpha, const Matrix& x, float beta, Matrix& y) {
  PADDLE_ENFORCE(x.size() == y.size(), DataError, "axpby: sizes differ (", x.size(), " vs ",
                 y.size(), ")");
  sameDevice(x, y, "axpby");
  if (y.useGpu()) {
#ifdef WITH_CUDA
    gpu::axpby(alpha, x.data(), beta, y.data(), y.size());
#endif
    return;
  }
  const float* a = x.data();
  float* b = y.data();
  parallelFor(y.size(), kParallelGrain, [=](size_t i0, size_t i1) {
    const float* __restrict ai = a + i0;
    float* __restrict bi = b + i0;
    const size_t n = i1 - i0;
    if (beta == 0.0f) {  // never read y: it may hold NaN garbage
      for (size_t i = 0; i < n; ++i) bi[i] = alpha * ai[i];
    } else {
      for (size_t i = 0; i < n; ++i) bi[i] = alpha * ai[i] + beta * bi[i];
    }
  });
}

void dotMul(Matrix& y, const Matrix& x) {
  PADDLE_ENFORCE(x.size() == y.size(), DataError, "dotMul: sizes differ (", x.size(), " vs ",
                 y.size(), ")");
  sameDevice(x, y, "dotMul");
  if (y.useGpu()) {
#ifdef WITH_CUDA
    gpu::dotMul(y.data(), x.data(), y.size());
#endif
    return;
  }
  const float* a = x.data();
  float* b = y.data();
  parallelFor(y.size(), kParallelGrain, [=](size_t i0, size_t i1) {
    const float* __restrict ai = a + i0;
    float* __restrict bi = b + i0;
    for (size_t i = 0, n = i1 - i0; i < n; ++i) bi[i] *= ai[i];
  });
}

void addColumns(Matrix& dst, size_t dstCol, const Matrix& src, size_t srcCol, size_t width, float beta) {
  PADDLE_ENFORCE(dst.height() == src.height() && dstCol + width <= dst.width() && srcCol + width <= src.width(),
                 DataError, "addColumns: columns [", srcCol, ", +", width, ") of ", shapeStr(src), " into [", dstCol,
                 ", +", width, ") of ", shapeStr(dst));
  sameDevice(dst, src, "addColumns");
  const size_t dw = dst.width(), sw = src.width();
  float* d = dst.data() + dstCol;
  const float* s = src.data() + srcCol;
  forEach2Parallel(dst.useGpu(), dst.height(), width, [=] PD_HD(size_t r, size_t j) {
    d[r * dw + j] = (beta == 0.0f ? 0.0f : beta * d[r * dw + j]) + s[r * sw + j];
  });
}

void addRowDots(const Matrix& x, const Matrix& y, float* out) {
  PADDLE_ENFORCE(x.height() == y.height() && x.width() == y.width(), DataError, "addRowDots: shapes differ (",
                 shapeStr(x), " vs ", shapeStr(y), ")");
  sameDevice(x, y, "addRowDots");
  const size_t w = x.width();
  const float* a = x.data();
  const float* b = y.data();
  // interleaved partial sums, combined in a fixed order: GCC vectorises them, where one
  // running sum is a chain of dependent adds
  constexpr size_t kLanes = 16;
  forEachParallel(x.useGpu(), x.height(), [=] PD_HD(size_t r) {
    const float* ar = a + r * w;
    const float* br = b + r * w;
    float lane[kLanes];
    for (size_t k = 0; k < kLanes; ++k) lane[k] = 0.0f;
    size_t j = 0;
    for (; j + kLanes <= w; j += kLanes)
      for (size_t k = 0; k < kLanes; ++k) lane[k] += ar[j + k] * br[j + k];
    float s = 0.0f;
    for (size_t k = 0; k < kLanes; ++k) s += lane[k];
    for (; j < w; ++j) s += ar[j] * br[j];
    out[r] += s;
  }, kParallelGrain / (w + 1) + 1);
}

void addDot(const Matrix& x, const Matrix& y, float* out) {
  PADDLE_ENFORCE(x.size() == y.size(), DataError, "addDot: sizes differ (", x.size(), " vs ", y.size(), ")");
  sameDevice(x, y, "addDot");
  const bool gpu = x.useGpu();
  const float* a = x.data();
  const float* b = y.data();
  const size_t n = x.size(), chunk = 4096, parts = (n + chunk - 1) / chunk;
  DenseBuffer<double> partial(1, std::max<size_t>(parts, 1), gpu);  // per-chunk sums, then their sum
  double* ps = partial.data();
  forEachParallel(gpu, parts, [=] PD_HD(size_t c) {
    double s = 0;
    for (size_t i = c * chunk, e = i + chunk < n ? i + chunk : n; i < e; ++i) s += static_cast<double>(a[i]) * b[i];
    ps[c] = s;
  }, kParallelGrain / chunk);
  forEach(gpu, 1, [=] PD_HD(size_t) {
    double s = 0;
    for (size_t c = 0; c < parts; ++c) s += ps[c];
    *out += static_cast<float>(s);
  });
}

bool addsProductOnce(const ReusedOperand& B, size_t depth) { return B.packed() && depth <= bf16DepthBlock(); }

}  // namespace math
}  // namespace paddle
