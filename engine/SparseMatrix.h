// A CSR matrix in host memory: sparse input rows (samples or tokens) without
// densifying. Row i holds entries [rowStarts[i], rowStarts[i+1]) of cols /
// values; offsets are absolute into cols / values, so a view of rows [b, e)
// shares them (rowStarts[b] need not be 0). values empty = binary (all 1).
// GPU kernels read device copies of the arrays.
#pragma once
#include "engine/math/Buffer.h"
#include "engine/math/HostDevice.h"

namespace paddle {

// A gradient addressed by row: a dense [rows, cols] buffer (slot null), or the
// compact buffer of a sparse_update parameter, where row r lives at position slot[r].
struct GradRows {
  float* data = nullptr;
  const int* slot = nullptr;
  size_t rows = 0, cols = 0;
  bool gpu = false;
  PD_HD float* row(int r) const { return data + static_cast<size_t>(slot ? slot[r] : r) * cols; }
};

// A table's value read by row id (lookups): rows in place (slot null), or, for a sharded
// table, the rows fetched from other processes (slot[r] >= 0) from a compact block.
struct ValueRows {
  const float* data = nullptr;
  const float* fetched = nullptr;
  const int* slot = nullptr;
  size_t rows = 0, cols = 0;
  bool gpu = false;
  PD_HD const float* row(int r) const {
    return slot && slot[r] >= 0 ? fetched + static_cast<size_t>(slot[r]) * cols : data + static_cast<size_t>(r) * cols;
  }
};

struct SparseMatrix {
  IVector rowStarts;  // 1 x (height + 1)
  IVector cols;       // 1 x nnz, each in [0, width)
  Matrix values;      // 1 x nnz, or empty for sparse_binary_vector
  size_t width = 0;

  bool empty() const { return rowStarts.size() == 0; }
  size_t height() const { return empty() ? 0 : rowStarts.size() - 1; }
  bool binary() const { return values.empty(); }
  // The column ids of this view's entries (its nonzeros), contiguous.
  const int* activeCols() const { return cols.data() + rowStarts.data()[0]; }
  size_t nnz() const { return empty() ? 0 : rowStarts.data()[height()] - rowStarts.data()[0]; }
  // A view of rows [begin, end): no copy.
  SparseMatrix rows(size_t begin, size_t end) const {
    SparseMatrix s = *this;
    s.rowStarts = IVector::view(const_cast<int*>(rowStarts.data()) + begin, 1, end - begin + 1, false);
    return s;
  }
};

namespace math {
// out = x * W + beta * out   (x: [n, k] CSR, W: [k, m] rows by id, out: [n, m]; on W's device)
void sparseMul(const SparseMatrix& x, const ValueRows& W, Matrix& out, float beta = 1.0f);
// Wgrad += x^T * g   (only the rows of Wgrad named by x's columns are touched)
void sparseTransMulAdd(const SparseMatrix& x, const Matrix& g, const GradRows& Wgrad);
// Checks offsets and column ids; throws DataError naming `what` and the row.
void checkSparse(const SparseMatrix& x, const std::string& what);
}  // namespace math

}  // namespace paddle
