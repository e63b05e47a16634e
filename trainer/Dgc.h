// Deep gradient compression's local step (Lin et al. 2018), without the transport: each
// process adds its gradient, through a local momentum u, into an accumulator v and sends only
// the largest |v| entries as (index, value) pairs; what it sends leaves v and u (momentum
// factor masking), the rest waits for later steps (error feedback). The DGC strategy
// (trainer/DgcSync.cpp) sums every process's pairs; tests/engine/test_dgc.py checks this step
// against NumPy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace paddle {

class DgcAccumulator {
 public:
  // n accumulated entries (u and v), zeroed.
  void reset(size_t n);
  size_t size() const { return v_.size(); }
  // The entries one step sends at `sparsity` (the fraction left behind): ceil((1 - sparsity) n),
  // at least 1 and at most n.
  static size_t sentCount(size_t n, double sparsity);
  // One step: u = momentum u + grad, v += u; then the sentCount largest |v| (ties: the lowest
  // indices) go out as (index, value) pairs in index order, two 32-bit words each (the value's
  // bits in the second), and leave u and v zeroed.
  void step(const float* grad, float momentum, double sparsity, std::vector<int32_t>& pairs);
  const std::vector<float>& momentum() const { return u_; }
  const std::vector<float>& accumulated() const { return v_; }

 private:
  std::vector<float> u_, v_;
  std::vector<float> magnitude_;
  std::vector<int> ids_;
};

}  // namespace paddle
