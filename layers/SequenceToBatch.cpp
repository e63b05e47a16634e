#include "SequenceToBatch.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "Errors.h"

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
  seqRow_.clear();
  seqRow_.reserve(rows);
  for (size_t t = 0; t < maxLen; ++t) {
    for (int s : order) {
      int len = starts[s + 1] - starts[s];
      if (static_cast<size_t>(len) <= t) break;  // sorted: the rest are shorter
      seqRow_.push_back(reversed ? starts[s] + len - 1 - static_cast<int>(t) : starts[s] + static_cast<int>(t));
    }
    stepStarts_.push_back(static_cast<int>(seqRow_.size()));
  }
}

void SequenceToBatch::toBatch(const Matrix& src, Matrix& dst) const {
  const size_t w = src.width();
  dst.resize(seqRow_.size(), w);
  for (size_t b = 0; b < seqRow_.size(); ++b) std::memcpy(dst.row(b), src.row(seqRow_[b]), w * sizeof(float));
}

void SequenceToBatch::toBatch(const IVector& src, IVector& dst) const {
  dst.resize(1, seqRow_.size());
  for (size_t b = 0; b < seqRow_.size(); ++b) dst.data()[b] = src.data()[seqRow_[b]];
}

void SequenceToBatch::toSequence(const Matrix& src, Matrix& dst, bool accumulate) const {
  const size_t w = src.width();
  for (size_t b = 0; b < seqRow_.size(); ++b) {
    float* __restrict d = dst.row(seqRow_[b]);
    const float* __restrict s = src.row(b);
    if (accumulate) {
      for (size_t j = 0; j < w; ++j) d[j] += s[j];
    } else {
      std::memcpy(d, s, w * sizeof(float));
    }
  }
}

}  // namespace paddle
