#include "engine/SparseMatrix.h"

#include "engine/Errors.h"
#include "engine/math/Kernel.h"

namespace paddle {
namespace math {

namespace {
// The CSR arrays where kernels read them: host memory, or device copies in `scratch`.
struct CsrView {
  const int* rowStarts;
  const int* cols;
  const float* values;  // null: binary
};
struct CsrScratch {
  IVector rowStarts, cols;
  Matrix values;
};
CsrView csrOn(const SparseMatrix& x, bool gpu, CsrScratch& s) {
  return {kernelView(x.rowStarts, s.rowStarts, gpu), kernelView(x.cols, s.cols, gpu),
          x.binary() ? nullptr : kernelView(x.values, s.values, gpu)};
}
}  // namespace

// One kernel index per sample row: y[i] = beta * y[i] + sum_k v_k W[col_k].
void sparseMul(const SparseMatrix& x, const ValueRows& W, Matrix& out, float beta) {
  const size_t n = x.height(), m = W.cols;
  PADDLE_ENFORCE(x.width == W.rows && out.height() == n && out.width() == m, DataError,
                 "sparse gemm shape mismatch: ", n, "x", x.width, " (sparse) * ", W.rows, "x", W.cols, " -> ",
                 shapeStr(out));
  PADDLE_ENFORCE(W.gpu == out.useGpu(), DataError, "sparse gemm: W and out live on different devices");
  CsrScratch scratch;  // freed to the pool after queueing: later work on this thread's stream runs after
  const CsrView csr = csrOn(x, out.useGpu(), scratch);
  float* o = out.data();
  // (each index writes its own output row: the CPU splits the rows over its threads)
  forEachParallel(out.useGpu(), n, [=] PD_HD(size_t i) {
    float* y = o + i * m;
    for (size_t j = 0; j < m; ++j) y[j] = beta == 0.0f ? 0.0f : beta * y[j];
    for (int k = csr.rowStarts[i]; k < csr.rowStarts[i + 1]; ++k) {
      const float a = csr.values ? csr.values[k] : 1.0f;
      const float* wr = W.row(csr.cols[k]);
      for (size_t j = 0; j < m; ++j) y[j] += a * wr[j];
    }
  }, std::max<size_t>(1, kParallelGrain / std::max<size_t>(x.nnz() / std::max<size_t>(n, 1) * m, 1)));
}

// One kernel index per sample row, adding into the W rows its columns name
// (atomically: samples share columns).
void sparseTransMulAdd(const SparseMatrix& x, const Matrix& g, const GradRows& Wgrad) {
  const size_t n = x.height(), m = g.width();
  PADDLE_ENFORCE(g.height() == n && Wgrad.rows == x.width && Wgrad.cols == m, DataError,
                 "sparse gemm shape mismatch: (", n, "x", x.width, " sparse)^T * ", shapeStr(g), " -> ", Wgrad.rows,
                 "x", Wgrad.cols);
  PADDLE_ENFORCE(g.useGpu() == Wgrad.gpu, DataError, "sparse gemm: g and Wgrad live on different devices");
  CsrScratch scratch;
  const CsrView csr = csrOn(x, g.useGpu(), scratch);
  const float* gm = g.data();
  const GradRows wg = Wgrad;
  if (!g.useGpu() && !reverseKernelOrder()) {
    // The CPU threads split the columns: every element adds in sample order, as one thread does.
    parallelFor(m, std::max<size_t>(1, kParallelGrain / std::max<size_t>(x.nnz(), 1)), [&](size_t j0, size_t j1) {
      for (size_t i = 0; i < n; ++i) {
        const float* gi = gm + i * m;
        for (int k = csr.rowStarts[i]; k < csr.rowStarts[i + 1]; ++k) {
          const float a = csr.values ? csr.values[k] : 1.0f;
          float* y = wg.row(csr.cols[k]);
          for (size_t j = j0; j < j1; ++j) y[j] += a * gi[j];
        }
      }
    });
    return;
  }
  forEach(g.useGpu(), n, [=] PD_HD(size_t i) {
    const float* gi = gm + i * m;
    for (int k = csr.rowStarts[i]; k < csr.rowStarts[i + 1]; ++k) {
      const float a = csr.values ? csr.values[k] : 1.0f;
      float* y = wg.row(csr.cols[k]);
      for (size_t j = 0; j < m; ++j) atomicAddF(y + j, a * gi[j]);
    }
  });
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
