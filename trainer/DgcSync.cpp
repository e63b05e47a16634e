// DGC (MpiSync.h): every rank's top-k (index, value) pairs (trainer/Dgc.h), all-gathered and
// added in rank order, are the gradient the optimizer applies.
#include <mpi.h>

#include <algorithm>
#include <cstring>

#include "engine/Errors.h"
#include "trainer/MpiSync.h"

namespace paddle {

bool DgcSync::correctsMomentum() const {
  const CollectiveOptions& o = world_.options();
  return o.dgcMomentum > 0 && step_ > o.dgcRampupBeginStep;
}

void DgcSync::exchangeGradients(const std::vector<ParameterPtr>& params) {
  ++world_.traffic().steps;
  ++step_;
  const CollectiveOptions& o = world_.options();
  if (step_ <= o.dgcRampupBeginStep) {
    plain_.reduceDense(params);
    sparse_.exchange(params);
    return;
  }
  if (offset_.size() != params.size()) {
    offset_.assign(params.size(), 0);
    size_t total = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      offset_[i] = total;
      if (isDense(*params[i])) total += params[i]->size();
    }
    PADDLE_ENFORCE(total <= kMaxMpiCount, UnsupportedError, "DGC: ", total,
                   " dense gradient entries are too many to index");
    accumulator_.reset(total);
    grad_.assign(total, 0.0f);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (isDense(*params[i])) params[i]->grad().copyToHost(grad_.data() + offset_[i]);
  }
  accumulator_.step(grad_.data(), static_cast<float>(o.dgcMomentum), o.dgcSparsity, pairs_);
  CollectiveTraffic& traffic = world_.traffic();
  traffic.dgcBytes += pairs_.size() * sizeof(int32_t);
  std::vector<int> all;
  {
    MpiTimer t(traffic.mpiSeconds, "the all-gather of DGC gradient pairs");
    all = world_.gatherInts(std::vector<int>(pairs_.begin(), pairs_.end()), "DGC (index, value) pairs");
  }
  std::fill(grad_.begin(), grad_.end(), 0.0f);
  for (size_t j = 0; j + 1 < all.size(); j += 2) {
    float value;
    std::memcpy(&value, &all[j + 1], sizeof(float));
    grad_[all[j]] += value;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!isDense(*params[i])) continue;
    Matrix& g = params[i]->grad();
    g.copyFromHost(grad_.data() + offset_[i], g.height(), g.width());
  }
  sparse_.exchange(params);
}

}  // namespace paddle
