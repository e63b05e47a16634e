// LocalSGD (MpiSync.h): local steps on scaled gradients, parameters averaged every K steps.
#include <mpi.h>

#include <algorithm>

#include "engine/Errors.h"
#include "engine/math/MathOps.h"
#include "trainer/MpiSync.h"
#include "trainer/Optimizers.h"

namespace paddle {

void LocalSgd::exchangeGradients(const std::vector<ParameterPtr>& params) {
  const int ranks = world_.size();
  const float more = static_cast<float>(ranks - 1);
  for (const ParameterPtr& p : params) {
    if (p->isStatic()) continue;
    if (!p->sparseUpdate() || p->allRowsTouched()) {
      if (p->sparseUpdate()) sinceAverageRows_[p->name()].push_back(-1);  // every row
      math::axpby(more, p->grad(), 1.0f, p->grad());  // (N - 1) g + g, exact for N = 2
      continue;
    }
    std::vector<int>& since = sinceAverageRows_[p->name()];
    since.insert(since.end(), p->touchedRows().begin(), p->touchedRows().end());
    Matrix g = p->touchedGrad();  // row k: the gradient of touchedRows()[k]
    for (size_t i = 0; i < g.size(); ++i) g.data()[i] *= static_cast<float>(ranks);
  }
}

void LocalSgd::stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  ++sinceAverage_;
  if (sinceAverage_ >= world_.options().localSgdSteps) average(updater, params);
}

void LocalSgd::passEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  if (sinceAverage_ > 0) average(updater, params);
}

void LocalSgd::average(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  updater.catchUp();  // sparse_update rows: every pending decay first, as before saving
  std::vector<Matrix*> values;
  for (const ParameterPtr& p : params) {
    if (isDense(*p)) values.push_back(&p->value());
  }
  ++world_.traffic().steps;
  world_.reduceMatrices(values, 1.0f / static_cast<float>(world_.size()));
  for (const ParameterPtr& p : params) {
    if (!p->isStatic() && p->sparseUpdate()) averageRows(*p);
  }
  sinceAverage_ = 0;
}

// A sparse_update table differs between ranks only in the rows some rank touched since the
// last average (as Geo-SGD pushes only those rows' changes): their ids are all-gathered and
// only their values averaged, unless some rank wrote the whole table.
void LocalSgd::averageRows(Parameter& p) {
  CollectiveTraffic& traffic = world_.traffic();
  std::vector<int> mine = std::move(sinceAverageRows_[p.name()]);
  sinceAverageRows_[p.name()].clear();
  const bool all = std::find(mine.begin(), mine.end(), -1) != mine.end();
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  if (all) mine.assign(1, -1);
  std::vector<int> ids;
  {
    MpiTimer t(traffic.mpiSeconds, "the LocalSGD average of table rows");
    ids = world_.gatherInts(mine, "averaged row ids");
  }
  traffic.sparseBytes += mine.size() * sizeof(int);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (!ids.empty() && ids[0] == -1) {
    world_.reduceMatrices({&p.value()}, 1.0f / static_cast<float>(world_.size()));
    return;
  }
  const size_t cols = p.cols();
  PADDLE_ENFORCE(ids.size() * cols <= kMaxMpiCount, UnsupportedError, "parameter '", p.name(), "': ", ids.size(),
                 " rows of ", cols, " floats are too many to average at once");
  Matrix& v = p.value();
  staging_.resize(ids.size() * cols);
  for (size_t i = 0; i < ids.size(); ++i) std::copy(v.row(ids[i]), v.row(ids[i]) + cols, staging_.data() + i * cols);
  traffic.sparseBytes += staging_.size() * sizeof(float);
  {
    MpiTimer t(traffic.mpiSeconds, "the LocalSGD average of table rows");
    world_.reduceFloats(staging_.data(), staging_.size());
  }
  const float scale = 1.0f / static_cast<float>(world_.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    float* row = v.row(ids[i]);
    for (size_t c = 0; c < cols; ++c) row[c] = staging_[i * cols + c] * scale;
  }
}

}  // namespace paddle
