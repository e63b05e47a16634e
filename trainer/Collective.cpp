#include "Collective.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "../layers/Errors.h"
#ifdef PADDLE_WITH_MPI
#include <mpi.h>
#endif

namespace paddle {

bool Collective::compiled() {
#ifdef PADDLE_WITH_MPI
  return true;
#else
  return false;
#endif
}

#ifndef PADDLE_WITH_MPI

Collective::Collective() {
  throw UnsupportedError(
      "this engine was built without MPI: install it (pip install mpich mpi4py) and rebuild to train on "
      "several processes");
}
void Collective::sum(double*, size_t) {}
void Collective::sumGradients(const std::vector<ParameterPtr>&) {}
void Collective::plan(const std::vector<ParameterPtr>&) {}
void Collective::reduceBucket(const Bucket&, const std::vector<ParameterPtr>&) {}
void Collective::reduceFloats(float*, size_t) {}
void Collective::gatherRows(Parameter&, const std::vector<int>&) {}

#else

namespace {
// 4 MB: large enough to amortise a call's latency, small enough that a later
// slice can launch buckets while backward still runs.
constexpr size_t kBucketFloats = size_t(1) << 20;
constexpr size_t kMaxCount = size_t(std::numeric_limits<int>::max());

// Adds the time spent in one MPI call to the traffic statistics.
class MpiTimer {
 public:
  explicit MpiTimer(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~MpiTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace

Collective::Collective() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  PADDLE_ENFORCE(initialized, UnsupportedError,
                 "MPI is not initialised: start distributed training through `paddle train` under mpiexec "
                 "(paddle.trainer.distributed initialises MPI with mpi4py)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void Collective::sum(double* data, size_t n) {
  MpiTimer t(traffic_.mpiSeconds);
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void Collective::reduceFloats(float* data, size_t n) {
  traffic_.denseBytes += n * sizeof(float);
  MpiTimer t(traffic_.mpiSeconds);
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(n - done, kMaxCount);
    MPI_Allreduce(MPI_IN_PLACE, data + done, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    done += count;
  }
}

void Collective::plan(const std::vector<ParameterPtr>& params) {
  buckets_.clear();
  sparse_.clear();
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = *params[i];
    if (p.isStatic()) continue;
    if (p.sparseUpdate()) {
      sparse_.push_back(i);
      continue;
    }
    if (buckets_.empty() || buckets_.back().floats + p.size() > kBucketFloats) buckets_.emplace_back();
    buckets_.back().params.push_back(i);
    buckets_.back().floats += p.size();
  }
  planned_ = params.size();
}

void Collective::reduceBucket(const Bucket& b, const std::vector<ParameterPtr>& params) {
  if (b.params.size() == 1 && !params[b.params[0]]->useGpu()) {  // a large parameter: in place
    Matrix& g = params[b.params[0]]->grad();
    reduceFloats(g.data(), g.size());
    return;
  }
  staging_.resize(b.floats);
  size_t offset = 0;
  for (size_t i : b.params) {
    Matrix& g = params[i]->grad();
    g.copyToHost(staging_.data() + offset);
    offset += g.size();
  }
  reduceFloats(staging_.data(), b.floats);
  offset = 0;
  for (size_t i : b.params) {
    Matrix& g = params[i]->grad();
    g.copyFromHost(staging_.data() + offset, g.height(), g.width());
    offset += g.size();
  }
}

void Collective::gatherRows(Parameter& p, const std::vector<int>& counts) {
  const std::vector<int> own = p.touchedRows();  // copied: marking rows below appends to it
  const size_t cols = p.cols();
  std::vector<int> idOffsets(size_), rowCounts(size_), rowOffsets(size_);
  size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    idOffsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  PADDLE_ENFORCE(total * cols <= kMaxCount, UnsupportedError, "parameter '", p.name(), "': ", total,
                 " touched rows of ", cols, " floats are too many for one exchange");
  for (int r = 0; r < size_; ++r) {
    rowCounts[r] = static_cast<int>(counts[r] * cols);
    rowOffsets[r] = static_cast<int>(idOffsets[r] * cols);
  }
  const GradRows g = p.gradRows();
  staging_.resize(own.size() * cols);
  for (size_t i = 0; i < own.size(); ++i) {
    std::copy(g.row(own[i]), g.row(own[i]) + cols, staging_.data() + i * cols);
    std::fill(g.row(own[i]), g.row(own[i]) + cols, 0.0f);  // comes back in the gathered rows
  }
  std::vector<int> ids(total);
  std::vector<float> rows(total * cols);
  traffic_.sparseBytes += own.size() * (sizeof(int) + cols * sizeof(float));
  {
    MpiTimer t(traffic_.mpiSeconds);
    MPI_Allgatherv(own.data(), static_cast<int>(own.size()), MPI_INT, ids.data(), counts.data(),
                   idOffsets.data(), MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(staging_.data(), static_cast<int>(staging_.size()), MPI_FLOAT, rows.data(), rowCounts.data(),
                   rowOffsets.data(), MPI_FLOAT, MPI_COMM_WORLD);
  }
  // Summed in rank order on every rank, so all ranks hold the same bits. Rows another
  // rank read catch up on their pending decay here, before the update, as reading does.
  const GradRows sum = p.gradRows(ids.data(), total);
  p.catchUpRows(ids.data(), total);
  for (size_t i = 0; i < total; ++i) {
    float* dst = sum.row(ids[i]);
    const float* src = rows.data() + i * cols;
    for (size_t c = 0; c < cols; ++c) dst[c] += src[c];
  }
}

void Collective::sumGradients(const std::vector<ParameterPtr>& params) {
  if (params.size() != planned_ || (buckets_.empty() && sparse_.empty())) plan(params);
  ++traffic_.steps;
  for (const Bucket& b : buckets_) reduceBucket(b, params);
  if (sparse_.empty()) return;
  // Per sparse parameter and rank: how many rows it touched, or -1 for the whole gradient.
  const size_t n = sparse_.size();
  std::vector<int> mine(n), all(n * size_);
  for (size_t s = 0; s < n; ++s) {
    const Parameter& p = *params[sparse_[s]];
    mine[s] = p.allRowsTouched() ? -1 : static_cast<int>(p.touchedRows().size());
  }
  {
    MpiTimer t(traffic_.mpiSeconds);
    MPI_Allgather(mine.data(), static_cast<int>(n), MPI_INT, all.data(), static_cast<int>(n), MPI_INT,
                  MPI_COMM_WORLD);
  }
  std::vector<int> counts(size_);
  for (size_t s = 0; s < n; ++s) {
    Parameter& p = *params[sparse_[s]];
    bool dense = false;
    for (int r = 0; r < size_; ++r) {
      counts[r] = all[r * n + s];
      dense = dense || counts[r] < 0;
    }
    if (dense) {  // some rank wrote every row (a dense writer): sum the whole table
      Matrix& g = p.grad();
      reduceFloats(g.data(), g.size());
    } else {
      gatherRows(p, counts);
    }
  }
}

#endif  // PADDLE_WITH_MPI

}  // namespace paddle
