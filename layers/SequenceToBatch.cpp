#include "layers/SequenceToBatch.h"

#include <algorithm>
#include <numeric>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"

namespace paddle {

void SequenceToBatch::build(const IVector& seqStarts, size_t rows, bool reversed) {
  std::vector<int> starts;
  if (seqStarts.size()) {
    starts.assign(seqStarts.data(), seqStarts.data() + seqStarts.size());
  } else {
    starts.resize(rows + 1);
    std::iota(starts.begin(), starts.end(), 0);
  }
  const size_t n = starts.size() - 1;
  PADDLE_ENFORCE(static_cast<size_t>(starts.back()) == rows, DataError, "sequence starts end at ",
                 starts.back(), " but the batch has ", rows, " rows");
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  // stable: equal lengths keep their input order, so results are reproducible
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return starts[a + 1] - starts[a] > starts[b + 1] - starts[b];
  });
  order_ = order;
  size_t maxLen = n ? starts[order[0] + 1] - starts[order[0]] : 0;
  stepStarts_.assign(1, 0);
  seqRow_.resize(1, rows);
  int* map = seqRow_.data();
  int b = 0;
  for (size_t t = 0; t < maxLen; ++t) {
    for (int s : order) {
      int len = starts[s + 1] - starts[s];
      if (static_cast<size_t>(len) <= t) break;  // sorted: the rest are shorter
      map[b++] = reversed ? starts[s] + len - 1 - static_cast<int>(t) : starts[s] + static_cast<int>(t);
    }
    stepStarts_.push_back(b);
  }
  deviceFresh_ = false;
}

const int* SequenceToBatch::rowMap(bool gpu) {
  if (!gpu) return seqRow_.data();
  if (!deviceFresh_) {
    kernelView(seqRow_, deviceRows_, true);
    deviceFresh_ = true;
  }
  return deviceRows_.data();
}

void SequenceToBatch::toBatch(const Matrix& src, Matrix& dst, const Matrix* bias) {
  const size_t w = src.width();
  const bool gpu = src.useGpu();
  dst.setDevice(gpu);
  dst.resize(seqRow_.size(), w);
  const int* map = rowMap(gpu);
  const float* s = src.data();
  float* d = dst.data();
  if (!bias) {
    forEach2Parallel(gpu, seqRow_.size(), w, [=] PD_HD(size_t b, size_t j) { d[b * w + j] = s[map[b] * w + j]; });
    return;
  }
  PADDLE_ENFORCE(bias->size() == w && bias->useGpu() == gpu, DataError, "toBatch: bias of ", bias->size(),
                 " values for rows of ", w);
  const float* r = bias->data();
  forEach2Parallel(gpu, seqRow_.size(), w,
                   [=] PD_HD(size_t b, size_t j) { d[b * w + j] = s[map[b] * w + j] + r[j]; });
}

void SequenceToBatch::toBatchSplit(const Matrix& src, size_t leftWidth, Matrix& left, Matrix& right,
                                   const Matrix* bias) {
  const size_t w = src.width(), wl = leftWidth, wr = w - leftWidth, rows = seqRow_.size();
  const bool gpu = src.useGpu();
  PADDLE_ENFORCE(leftWidth <= w, DataError, "toBatchSplit: ", leftWidth, " left columns of ", w);
  PADDLE_ENFORCE(!bias || (bias->size() == w && bias->useGpu() == gpu), DataError, "toBatchSplit: bias of ",
                 bias ? bias->size() : 0, " values for rows of ", w);
  for (Matrix* m : {&left, &right}) m->setDevice(gpu);
  left.resize(rows, wl);
  right.resize(rows, wr);
  const int* map = rowMap(gpu);
  const float* s = src.data();
  const float* r = bias ? bias->data() : nullptr;
  float* l = left.data();
  float* o = right.data();
  if (r) {
    forEach2Parallel(gpu, rows, wl, [=] PD_HD(size_t b, size_t j) { l[b * wl + j] = s[map[b] * w + j] + r[j]; });
    forEach2Parallel(gpu, rows, wr,
                     [=] PD_HD(size_t b, size_t j) { o[b * wr + j] = s[map[b] * w + wl + j] + r[wl + j]; });
  } else {
    forEach2Parallel(gpu, rows, wl, [=] PD_HD(size_t b, size_t j) { l[b * wl + j] = s[map[b] * w + j]; });
    forEach2Parallel(gpu, rows, wr, [=] PD_HD(size_t b, size_t j) { o[b * wr + j] = s[map[b] * w + wl + j]; });
  }
}

void SequenceToBatch::toBatch(const IVector& src, IVector& dst) {
  const bool gpu = src.useGpu();
  dst.setDevice(gpu);
  dst.resize(1, seqRow_.size());
  const int* map = rowMap(gpu);
  const int* s = src.data();
  int* d = dst.data();
  forEachParallel(gpu, seqRow_.size(), [=] PD_HD(size_t b) { d[b] = s[map[b]]; });
}

void SequenceToBatch::toSequence(const Matrix& src, Matrix& dst, bool accumulate) {
  PADDLE_ENFORCE(src.useGpu() == dst.useGpu(), DataError, "toSequence: operands live on different devices");
  const size_t w = src.width();
  const bool gpu = dst.useGpu();
  const int* map = rowMap(gpu);
  const float* s = src.data();
  float* d = dst.data();
  // batch rows map to distinct sequence rows: every (b, j) owns its destination, so the CPU
  // splits the rows across the thread pool (as in toBatch)
  if (accumulate) {
    forEach2Parallel(gpu, seqRow_.size(), w, [=] PD_HD(size_t b, size_t j) { d[map[b] * w + j] += s[b * w + j]; });
  } else {
    forEach2Parallel(gpu, seqRow_.size(), w, [=] PD_HD(size_t b, size_t j) { d[map[b] * w + j] = s[b * w + j]; });
  }
}

void SequenceToBatch::toSequenceSummingRows(const Matrix& src, Matrix& dst, Matrix& sums, bool overwrite) {
  PADDLE_ENFORCE(sums.size() == src.width(), DataError, "toSequenceSummingRows: ", sums.size(), " sums for rows of ",
                 src.width());
  if (src.useGpu() || reverseKernelOrder()) {
    math::sumRows(src, sums);
    if (overwrite) math::zero(dst);
    toSequence(src, dst, true);
    return;
  }
  PADDLE_ENFORCE(!dst.useGpu() && !sums.useGpu(), DataError, "toSequenceSummingRows: operands live on different devices");
  const size_t w = src.width(), h = seqRow_.size();
  const int* map = rowMap(false);
  const float* s = src.data();
  float* d = dst.data();
  float* o = sums.data();
  // threads take blocks of columns and walk the rows in order, as math::sumRows does
  parallelFor(w, kParallelGrain / std::max<size_t>(h, 1) + 1, [=](size_t j0, size_t j1) {
    float* __restrict oj = o + j0;
    const size_t cols = j1 - j0;
    for (size_t b = 0; b < h; ++b) {
      const float* __restrict x = s + b * w + j0;
      float* __restrict y = d + static_cast<size_t>(map[b]) * w + j0;
      if (overwrite) {
        for (size_t j = 0; j < cols; ++j) {
          oj[j] += x[j];
          y[j] = 0.0f + x[j];  // -0 becomes +0, as when added to a cleared gradient
        }
      } else {
        for (size_t j = 0; j < cols; ++j) {
          oj[j] += x[j];
          y[j] += x[j];
        }
      }
    }
  });
}

void SequenceToBatch::addJoinedToSequence(const Matrix& left, const Matrix& right, Matrix* dst, Matrix* sums) {
  const size_t wl = left.width(), wr = right.width(), w = wl + wr, h = seqRow_.size();
  PADDLE_ENFORCE(!left.useGpu() && !right.useGpu() && (!dst || !dst->useGpu()) && (!sums || !sums->useGpu()),
                 DataError, "addJoinedToSequence runs on the CPU");
  PADDLE_ENFORCE(left.height() == h && right.height() == h && (!dst || dst->width() == w) &&
                     (!sums || sums->size() == w),
                 DataError, "addJoinedToSequence: shapes do not match rows of ", wl, " + ", wr);
  if (!dst && !sums) return;
  const int* map = rowMap(false);
  const float* ls = left.data();
  const float* rs = right.data();
  float* d = dst ? dst->data() : nullptr;
  float* o = sums ? sums->data() : nullptr;
  // One block of columns [j0, j1) of one source (width ws, at column off of the joined rows), the rows
  // in order (as math::sumRows sums them).
  auto block = [=](const float* src, size_t ws, size_t off, size_t j0, size_t j1) {
    const size_t cols = j1 - j0;
    for (size_t b = 0; b < h; ++b) {
      const float* __restrict x = src + b * ws + j0;
      if (o) {
        float* __restrict oj = o + off + j0;
        for (size_t j = 0; j < cols; ++j) oj[j] += x[j];
      }
      if (d) {
        float* __restrict y = d + static_cast<size_t>(map[b]) * w + off + j0;
        for (size_t j = 0; j < cols; ++j) y[j] += x[j];
      }
    }
  };
  // threads take blocks of the joined columns; a block that straddles the two sources runs each part
  parallelFor(w, kParallelGrain / std::max<size_t>(h, 1) + 1, [=](size_t j0, size_t j1) {
    if (j0 < wl) block(ls, wl, 0, j0, std::min(j1, wl));
    if (j1 > wl) block(rs, wr, wl, std::max(j0, wl) - wl, j1 - wl);
  });
}

}  // namespace paddle
