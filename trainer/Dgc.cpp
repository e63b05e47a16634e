#include "trainer/Dgc.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace paddle {

void DgcAccumulator::reset(size_t n) {
  u_.assign(n, 0.0f);
  v_.assign(n, 0.0f);
}

size_t DgcAccumulator::sentCount(size_t n, double sparsity) {
  const double density = 1.0 - sparsity;
  return std::min(n, std::max<size_t>(1, static_cast<size_t>(std::ceil(density * n))));
}

void DgcAccumulator::step(const float* grad, float momentum, double sparsity, std::vector<int32_t>& pairs) {
  const size_t total = v_.size();
  for (size_t j = 0; j < total; ++j) {
    u_[j] = momentum * u_[j] + grad[j];
    v_[j] += u_[j];
  }
  const size_t k = sentCount(total, sparsity);
  // The k-th largest |v| (a selection over contiguous magnitudes), then the entries above it
  // and, in index order, as many equal to it as k leaves room for.
  ids_.clear();
  ids_.reserve(k);
  if (k < total) {
    magnitude_.resize(total);
    for (size_t j = 0; j < total; ++j) magnitude_[j] = std::fabs(v_[j]);
    std::nth_element(magnitude_.begin(), magnitude_.begin() + (k - 1), magnitude_.end(), std::greater<float>());
    const float threshold = magnitude_[k - 1];
    for (size_t j = 0; j < total; ++j) {
      if (std::fabs(v_[j]) > threshold) ids_.push_back(static_cast<int>(j));
    }
    for (size_t j = 0; j < total && ids_.size() < k; ++j) {
      if (std::fabs(v_[j]) == threshold) ids_.push_back(static_cast<int>(j));
    }
    std::sort(ids_.begin(), ids_.end());
  } else {
    for (size_t j = 0; j < total; ++j) ids_.push_back(static_cast<int>(j));
  }
  pairs.resize(2 * k);
  for (size_t j = 0; j < k; ++j) {
    pairs[2 * j] = ids_[j];
    std::memcpy(&pairs[2 * j + 1], &v_[ids_[j]], sizeof(float));
    v_[ids_[j]] = 0.0f;
    u_[ids_[j]] = 0.0f;
  }
}

}  // namespace paddle
