#include "SparseMatrix.h"

#include "Errors.h"

namespace paddle {
namespace math {

namespace {
// y[0:m] += a * w[0:m]
inline void axpyRow(float a, const float* __restrict w, float* __restrict y, size_t m) {
  for (size_t j = 0; j < m; ++j) y[j] += a * w[j];
}
inline void addRow(const float* __restrict w, float* __restrict y, size_t m) {
  for (size_t j = 0; j < m; ++j) y[j] += w[j];
}
}  // namespace

void sparseMul(const SparseMatrix& x, const Matrix& W, Matrix& out, float beta) {
  const size_t n = x.height(), m = W.width();
  PADDLE_ENFORCE(x.width == W.height() && out.height() == n && out.width() == m, DataError,
                 "sparse gemm shape mismatch: ", n, "x", x.width, " (sparse) * ", shapeStr(W), " -> ",
                 shapeStr(out));
  PADDLE_ENFORCE(!W.useGpu() && !out.useGpu(), UnsupportedError, "sparse input is CPU-only");
  const int* rs = x.rowStarts.data();
  const int* cols = x.cols.data();
  const float* vals = x.binary() ? nullptr : x.values.data();
  for (size_t i = 0; i < n; ++i) {
    float* __restrict y = out.row(i);
    if (beta == 0.0f) {
      for (size_t j = 0; j < m; ++j) y[j] = 0.0f;
    } else if (beta != 1.0f) {
      for (size_t j = 0; j < m; ++j) y[j] *= beta;
    }
    for (int k = rs[i]; k < rs[i + 1]; ++k) {
      if (vals) axpyRow(vals[k], W.row(cols[k]), y, m);
      else addRow(W.row(cols[k]), y, m);
    }
  }
}

void sparseTransMulAdd(const SparseMatrix& x, const Matrix& g, Matrix& Wgrad) {
  const size_t n = x.height(), m = g.width();
  PADDLE_ENFORCE(g.height() == n && Wgrad.height() == x.width && Wgrad.width() == m, DataError,
                 "sparse gemm shape mismatch: (", n, "x", x.width, " sparse)^T * ", shapeStr(g), " -> ",
                 shapeStr(Wgrad));
  PADDLE_ENFORCE(!g.useGpu() && !Wgrad.useGpu(), UnsupportedError, "sparse input is CPU-only");
  const int* rs = x.rowStarts.data();
  const int* cols = x.cols.data();
  const float* vals = x.binary() ? nullptr : x.values.data();
  for (size_t i = 0; i < n; ++i) {
    const float* gi = g.row(i);
    for (int k = rs[i]; k < rs[i + 1]; ++k) {
      if (vals) axpyRow(vals[k], gi, Wgrad.row(cols[k]), m);
      else addRow(gi, Wgrad.row(cols[k]), m);
    }
  }
}

void checkSparse(const SparseMatrix& x, const std::string& what) {
  const int* rs = x.rowStarts.data();
  const int* cols = x.cols.data();
  const size_t n = x.height();
  PADDLE_ENFORCE(rs[0] >= 0 && static_cast<size_t>(rs[n]) <= x.cols.size(), DataError, what,
                 ": sparse row offsets [", rs[0], ", ", rs[n], "] do not fit ", x.cols.size(), " column ids");
  PADDLE_ENFORCE(x.binary() || x.values.size() == x.cols.size(), DataError, what, ": ", x.values.size(),
                 " sparse values for ", x.cols.size(), " column ids");
  for (size_t i = 0; i < n; ++i) {
    PADDLE_ENFORCE(rs[i] <= rs[i + 1], DataError, what, ": sparse row offsets decrease at sample ", i);
    for (int k = rs[i]; k < rs[i + 1]; ++k) {
      PADDLE_ENFORCE(cols[k] >= 0 && static_cast<size_t>(cols[k]) < x.width, DataError, what, ": sample ", i,
                     " has sparse id ", cols[k], ", outside [0, ", x.width, ")");
    }
  }
}

}  // namespace math
}  // namespace paddle
