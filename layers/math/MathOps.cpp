#include "MathOps.h"

#include <cblas.h>

#include "../Errors.h"
#include "GpuOps.h"
#include "Kernel.h"

namespace paddle {
namespace math {

namespace {
void sameDevice(const Matrix& a, const Matrix& b, const char* op) {
  PADDLE_ENFORCE(a.useGpu() == b.useGpu(), DataError, op, ": operands live on different devices");
#ifndef WITH_CUDA
  if (a.useGpu()) throwNoCuda(op);
#endif
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
    gpu::gemm(A.data(), transA, B.data(), transB, C.data(), M, N, K, alpha, beta);
#endif
    return;
  }
  scipy_cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                    transB ? CblasTrans : CblasNoTrans, M, N, K, alpha, A.data(), A.width(),
                    B.data(), B.width(), beta, C.data(), C.width());
}

void addRowVector(Matrix& m, const Matrix& row, float scale) {
  PADDLE_ENFORCE(row.size() == m.width(), DataError, "addRowVector: row of ", row.size(),
                 " values for a matrix of width ", m.width());
  sameDevice(m, row, "addRowVector");
  if (m.useGpu()) {
#ifdef WITH_CUDA
    gpu::addRowVector(m.data(), row.data(), m.height(), m.width(), scale);
#endif
    return;
  }
  const size_t w = m.width();
  const float* __restrict r = row.data();
  for (size_t i = 0; i < m.height(); ++i) {
    float* __restrict x = m.row(i);
    for (size_t j = 0; j < w; ++j) x[j] += scale * r[j];
  }
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
  const size_t w = m.width();
  float* __restrict o = out.data();
  for (size_t j = 0; j < w; ++j) o[j] *= beta;
  for (size_t i = 0; i < m.height(); ++i) {
    const float* __restrict x = m.row(i);
    for (size_t j = 0; j < w; ++j) o[j] += x[j];
  }
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
  const float* __restrict a = x.data();
  float* __restrict b = y.data();
  const size_t n = y.size();
  if (beta == 0.0f) {  // never read y: it may hold NaN garbage
    for (size_t i = 0; i < n; ++i) b[i] = alpha * a[i];
  } else {
    for (size_t i = 0; i < n; ++i) b[i] = alpha * a[i] + beta * b[i];
  }
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
  const float* __restrict a = x.data();
  float* __restrict b = y.data();
  for (size_t i = 0, n = y.size(); i < n; ++i) b[i] *= a[i];
}

void addColumns(Matrix& dst, size_t dstCol, const Matrix& src, size_t srcCol, size_t width, float beta) {
  PADDLE_ENFORCE(dst.height() == src.height() && dstCol + width <= dst.width() && srcCol + width <= src.width(),
                 DataError, "addColumns: columns [", srcCol, ", +", width, ") of ", shapeStr(src), " into [", dstCol,
                 ", +", width, ") of ", shapeStr(dst));
  sameDevice(dst, src, "addColumns");
  const size_t dw = dst.width(), sw = src.width();
  float* d = dst.data() + dstCol;
  const float* s = src.data() + srcCol;
  forEach2(dst.useGpu(), dst.height(), width, [=] PD_HD(size_t r, size_t j) {
    d[r * dw + j] = (beta == 0.0f ? 0.0f : beta * d[r * dw + j]) + s[r * sw + j];
  });
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
  forEach(gpu, parts, [=] PD_HD(size_t c) {
    double s = 0;
    for (size_t i = c * chunk, e = i + chunk < n ? i + chunk : n; i < e; ++i) s += static_cast<double>(a[i]) * b[i];
    ps[c] = s;
  });
  forEach(gpu, 1, [=] PD_HD(size_t) {
    double s = 0;
    for (size_t c = 0; c < parts; ++c) s += ps[c];
    *out += static_cast<float>(s);
  });
}

void setCpuThreads(int n) { scipy_openblas_set_num_threads(n); }

}  // namespace math
}  // namespace paddle
