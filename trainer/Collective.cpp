#include "Collective.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <functional>
#include <numeric>
#include <limits>
#include <set>
#include <string>

#include "../layers/Errors.h"
#include "../layers/math/MathOps.h"
#include "GradientMachine.h"
#ifdef PADDLE_WITH_MPI
#include <mpi.h>
#endif

namespace paddle {

namespace {
// The collective watchdog's state: who waits in MPI since when. Never destroyed, and its
// thread detached, so process exit does not wait for (or on) it.
struct Watchdog {
  std::mutex mutex;
  std::map<std::thread::id, std::pair<const char*, std::chrono::steady_clock::time_point>> waiting;
  double timeout = 0;
  int rank = 0, size = 1;
  bool started = false;
};
Watchdog& watchdog() {
  static Watchdog* w = new Watchdog;
  return *w;
}

void watch() {
  Watchdog& w = watchdog();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::lock_guard<std::mutex> lock(w.mutex);
    if (w.timeout <= 0) continue;
    const auto now = std::chrono::steady_clock::now();
    for (const auto& entry : w.waiting) {
      const double waited = std::chrono::duration<double>(now - entry.second.second).count();
      if (waited <= w.timeout) continue;
      std::fprintf(stderr,
                   "paddle train: rank %d of %d: %s has waited %.0f s for the other ranks (--collective_timeout=%g):"
                   " a rank is stuck or gone, so the job ends\n",
                   w.rank, w.size, entry.second.first, waited, w.timeout);
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the launcher forwards the line first
#ifdef PADDLE_WITH_MPI
      MPI_Abort(MPI_COMM_WORLD, 1);
#endif
      std::_Exit(1);
    }
  }
}
}  // namespace

void setCollectiveTimeout(double seconds, int rank, int size) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.timeout = seconds;
  w.rank = rank;
  w.size = size;
  if (seconds > 0 && !w.started) {
    w.started = true;
    std::thread(watch).detach();
  }
}

void enterCollective(const char* what) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.waiting[std::this_thread::get_id()] = {what, std::chrono::steady_clock::now()};
}

void leaveCollective() {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.waiting.erase(std::this_thread::get_id());
}

bool Collective::compiled() {
#ifdef PADDLE_WITH_MPI
  return true;
#else
  return false;
#endif
}

#ifndef PADDLE_WITH_MPI

struct Collective::Comm {};
Collective::Collective() {
  throw UnsupportedError(
      "this engine was built without MPI: install it (pip install mpich mpi4py) and rebuild to train on "
      "several processes");
}
Collective::~Collective() = default;
void Collective::setOptions(const CollectiveOptions&) {}
void Collective::sum(double*, size_t) {}
std::vector<double> Collective::gather(const std::vector<double>& mine, const char*) { return mine; }
void Collective::attach(GradientMachine&) {}
void Collective::finishBackward(const std::vector<ParameterPtr>&) {}
void Collective::sumGradients(const std::vector<ParameterPtr>&) {}
bool Collective::averageDue(bool) { return false; }
void Collective::averageParameters(const std::vector<ParameterPtr>&) {}

#else

struct Collective::Comm {
  MPI_Comm comm = MPI_COMM_NULL;
};

namespace {
constexpr size_t kMaxCount = size_t(std::numeric_limits<int>::max());

// Every rank's `mine`, concatenated in rank order (the lengths may differ between ranks).
template <class T>
std::vector<T> allGatherv(const std::vector<T>& mine, MPI_Datatype type, int ranks, const char* what) {
  std::vector<int> counts(ranks), offsets(ranks);
  int n = static_cast<int>(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  size_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  PADDLE_ENFORCE(total <= kMaxCount, UnsupportedError, what, ": ", total, " values are too many for one exchange");
  std::vector<T> all(total);
  MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD);
  return all;
}

bool isDense(const Parameter& p) { return !p.isStatic() && !p.sparseUpdate(); }
}  // namespace

Collective::Collective() : gradComm_(new Comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  PADDLE_ENFORCE(initialized, UnsupportedError,
                 "MPI is not initialised: start distributed training through `paddle train` under mpiexec "
                 "(paddle.trainer.distributed initialises MPI with mpi4py)");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  threadMpi_ = provided == MPI_THREAD_MULTIPLE;
  // The communication thread's collectives run beside the training thread's (cost, statistics):
  // on a communicator of their own, so the two streams never mix.
  if (threadMpi_) {
    MPI_Comm_dup(MPI_COMM_WORLD, &gradComm_->comm);
    thread_ = std::thread([this] { communicate(); });
  }
}

Collective::~Collective() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (gradComm_->comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&gradComm_->comm);
}

void Collective::setOptions(const CollectiveOptions& o) {
  PADDLE_ENFORCE(o.bucketMb > 0, ConfigError, "--bucket_cap_mb must be > 0, got ", o.bucketMb);
  PADDLE_ENFORCE(o.localSgdSteps >= 0, ConfigError, "--local_sgd_steps must be >= 0, got ", o.localSgdSteps);
  PADDLE_ENFORCE(o.dgcSparsity < 1, ConfigError, "--dgc_sparsity must be below 1 (the fraction left behind), got ",
                 o.dgcSparsity);
  PADDLE_ENFORCE(o.dgcMomentum >= 0 && o.dgcMomentum < 1, ConfigError, "--dgc_momentum must be in [0, 1), got ",
                 o.dgcMomentum);
  PADDLE_ENFORCE(!(o.localSgdSteps > 0 && o.dgcSparsity >= 0), ConfigError,
                 "--local_sgd_steps and --dgc_sparsity exclude each other (choose one way to save communication)");
  options_ = o;
  planned_ = 0;  // re-plan the buckets for the new size
  setCollectiveTimeout(o.timeoutSeconds, rank_, size_);
}

void Collective::sum(double* data, size_t n) {
  MpiTimer t(traffic_.mpiSeconds, "the all-reduce of statistics");
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

std::vector<double> Collective::gather(const std::vector<double>& mine, const char* what) {
  MpiTimer t(traffic_.mpiSeconds, what);
  return allGatherv(mine, MPI_DOUBLE, size_, "evaluator statistics");
}

void Collective::reduceFloats(float* data, size_t n, bool onThreadComm) {
  MPI_Comm comm = onThreadComm ? gradComm_->comm : MPI_COMM_WORLD;
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(n - done, kMaxCount);
    MPI_Allreduce(MPI_IN_PLACE, data + done, static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
    done += count;
  }
}

void Collective::attach(GradientMachine& gm) {
  if (!threadMpi_) return;  // without MPI_THREAD_MULTIPLE the exchange waits for backward
  machine_ = &gm;
  // A parameter's gradient is final once backward (last layer first) has run the
  // lowest-numbered layer that writes it; parameters of no root layer (a recurrent
  // group's) only at the very end.
  const auto& params = gm.parameters();
  std::vector<size_t> lowest(params.size(), SIZE_MAX);
  for (size_t l = 0; l < gm.layers().size(); ++l) {
    for (Parameter* p : gm.layers()[l]->parameters()) {
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].get() == p) lowest[i] = std::min(lowest[i], l);
      }
    }
  }
  // A parameter that layers of a sub-model (a recurrent group's step) also use is final only
  // at the end too: those layers run inside their group's backward.
  std::set<std::string> root, inGroups;
  for (const auto& l : gm.layers()) root.insert(l->name());
  for (const Json& lc : gm.config()["layers"].items()) {
    if (root.count(lc.getString("name"))) continue;
    inGroups.insert(lc.getString("bias_parameter_name"));
    for (const Json& in : lc["inputs"].items()) inGroups.insert(in.getString("input_parameter_name"));
  }
  readyAt_.assign(params.size(), 0);
  for (size_t i = 0; i < params.size(); ++i) {
    if (lowest[i] != SIZE_MAX && !inGroups.count(params[i]->name())) readyAt_[i] = lowest[i];
  }
  // Data layers have no backward to do: buckets launched after the first other layer are not early.
  firstWorkingLayer_ = 0;
  const auto& data = gm.dataLayers();
  while (firstWorkingLayer_ < gm.layers().size() &&
         std::count(data.begin(), data.end(), gm.layers()[firstWorkingLayer_].get())) {
    ++firstWorkingLayer_;
  }
  gm.setBackwardHook([this](size_t layer) { onLayerDone(layer); });
  planned_ = 0;
}

void Collective::plan(const std::vector<ParameterPtr>& params) {
  buckets_.clear();
  sparse_.clear();
  if (readyAt_.size() != params.size()) readyAt_.assign(params.size(), 0);
  // Dense gradients in the order backward finishes them (later layers first).
  std::vector<size_t> order(params.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return readyAt_[a] > readyAt_[b]; });
  const size_t bucketFloats = std::max<size_t>(1, static_cast<size_t>(options_.bucketMb * (1 << 20) / sizeof(float)));
  for (size_t i : order) {
    const Parameter& p = *params[i];
    if (!isDense(p)) continue;
    if (buckets_.empty() || buckets_.back().floats + p.size() > bucketFloats) {
      buckets_.emplace_back();
      buckets_.back().readyAt = readyAt_[i];
    }
    buckets_.back().params.push_back(i);
    buckets_.back().floats += p.size();
    buckets_.back().readyAt = std::min(buckets_.back().readyAt, readyAt_[i]);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]->isStatic() && params[i]->sparseUpdate() && !params[i]->sharded()) sparse_.push_back(i);
  }
  planned_ = params.size();
  launched_ = done_ = 0;
}

void Collective::point(Bucket& b, const std::vector<ParameterPtr>& params) {
  traffic_.denseBytes += b.floats * sizeof(float);
  if (b.params.size() == 1 && !params[b.params[0]]->useGpu()) {  // a large parameter: in place
    b.data = params[b.params[0]]->grad().data();
    return;
  }
  b.staging.resize(b.floats);
  size_t offset = 0;
  for (size_t i : b.params) {
    Matrix& g = params[i]->grad();
    g.copyToHost(b.staging.data() + offset);
    offset += g.size();
  }
  b.data = b.staging.data();
}

void Collective::land(Bucket& b, const std::vector<ParameterPtr>& params) {
  if (b.data != b.staging.data()) return;  // reduced in place
  size_t offset = 0;
  for (size_t i : b.params) {
    Matrix& g = params[i]->grad();
    g.copyFromHost(b.staging.data() + offset, g.height(), g.width());
    offset += g.size();
  }
}

void Collective::launch(Bucket& b, const std::vector<ParameterPtr>& params) {
  point(b, params);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(&b);
  }
  cv_.notify_all();
}

void Collective::communicate() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Bucket* b = queue_.front();
    queue_.pop_front();
    lock.unlock();
    reduceFloats(b->data, b->floats, true);
    lock.lock();
    ++done_;
    cv_.notify_all();
  }
}

bool Collective::overlapping() const {
  return machine_ && options_.overlap && options_.dgcSparsity < 0 && options_.localSgdSteps == 0;
}

void Collective::onLayerDone(size_t layer) {
  if (!overlapping()) return;
  const auto& params = machine_->parameters();
  if (planned_ != params.size()) plan(params);
  while (launched_ < buckets_.size() && buckets_[launched_].readyAt >= layer) {
    if (layer > firstWorkingLayer_) traffic_.earlyBytes += buckets_[launched_].floats * sizeof(float);
    launch(buckets_[launched_++], params);
  }
}

void Collective::finishBackward(const std::vector<ParameterPtr>& params) {
  if (!overlapping()) return;
  if (planned_ != params.size()) plan(params);
  while (launched_ < buckets_.size()) launch(buckets_[launched_++], params);  // backward skipped (no data)
  waitLaunched();
}

void Collective::waitLaunched() {
  MpiTimer t(traffic_.mpiSeconds, "the all-reduce of gradients");
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_ == launched_; });
}

void Collective::reduceMatrices(const std::vector<Matrix*>& ms, float scale) {
  const size_t runFloats = std::max<size_t>(1, static_cast<size_t>(options_.bucketMb * (1 << 20) / sizeof(float)));
  for (size_t first = 0; first < ms.size();) {
    size_t last = first, floats = 0;
    while (last < ms.size() && (last == first || floats + ms[last]->size() <= runFloats)) floats += ms[last++]->size();
    staging_.resize(floats);
    size_t offset = 0;
    for (size_t i = first; i < last; ++i) {
      ms[i]->copyToHost(staging_.data() + offset);
      offset += ms[i]->size();
    }
    traffic_.denseBytes += floats * sizeof(float);
    {
      MpiTimer t(traffic_.mpiSeconds, "the all-reduce of gradients");
      reduceFloats(staging_.data(), floats, false);
    }
    if (scale != 1.0f) {
      for (float& x : staging_) x *= scale;
    }
    offset = 0;
    for (size_t i = first; i < last; ++i) {
      ms[i]->copyFromHost(staging_.data() + offset, ms[i]->height(), ms[i]->width());
      offset += ms[i]->size();
    }
    first = last;
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
    MpiTimer t(traffic_.mpiSeconds, "the all-gather of sparse gradient rows");
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
  if (params.size() != planned_) plan(params);
  PADDLE_ENFORCE(!sharding() || (!localSgd() && options_.dgcSparsity < 0), ConfigError,
                 "sharded tables (--local=0) exchange every step: not with --local_sgd_steps or --dgc_sparsity");
  if (localSgd()) {
    scaleLocal(params);
    return;
  }
  ++traffic_.steps;
  ++step_;
  if (options_.dgcSparsity >= 0 && step_ > options_.dgcRampupBeginStep) {
    sumDgc(params);
  } else if (overlapping()) {
    finishBackward(params);
    for (Bucket& b : buckets_) land(b, params);
    launched_ = done_ = 0;
  } else {
    for (Bucket& b : buckets_) {
      point(b, params);
      {
        MpiTimer t(traffic_.mpiSeconds, "the all-reduce of gradients");
        reduceFloats(b.data, b.floats, false);
      }
      land(b, params);
    }
  }
  sumSparse(params);
  for (Shard& s : shards_) sendRowsToOwners(s);
}

void Collective::sumSparse(const std::vector<ParameterPtr>& params) {
  if (sparse_.empty()) return;
  // Per sparse parameter and rank: how many rows it touched, or -1 for the whole gradient.
  const size_t n = sparse_.size();
  std::vector<int> mine(n), all(n * size_);
  for (size_t s = 0; s < n; ++s) {
    const Parameter& p = *params[sparse_[s]];
    mine[s] = p.allRowsTouched() ? -1 : static_cast<int>(p.touchedRows().size());
  }
  {
    MpiTimer t(traffic_.mpiSeconds, "the all-gather of sparse gradient rows");
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
      traffic_.denseBytes += g.size() * sizeof(float);
      MpiTimer t(traffic_.mpiSeconds, "the all-gather of sparse gradient rows");
      reduceFloats(g.data(), g.size(), false);
    } else {
      gatherRows(p, counts);
    }
  }
}

// DGC (Lin et al. 2018): each rank adds its gradient, through a local momentum u, into an
// accumulator v and sends only the largest |v| entries, as (index, value) pairs; what it sent
// leaves v and u (momentum factor masking), the rest waits for later steps (error feedback).
// The sum of every rank's pairs, added in rank order, is the gradient the optimizer applies.
void Collective::sumDgc(const std::vector<ParameterPtr>& params) {
  if (dgcOffset_.size() != params.size()) {
    dgcOffset_.assign(params.size(), 0);
    size_t total = 0;
    for (size_t i = 0; i < params.size(); ++i) {
      dgcOffset_[i] = total;
      if (isDense(*params[i])) total += params[i]->size();
    }
    PADDLE_ENFORCE(total <= kMaxCount, UnsupportedError, "DGC: ", total, " dense gradient entries are too many to index");
    dgcU_.assign(total, 0.0f);
    dgcV_.assign(total, 0.0f);
    dgcGrad_.assign(total, 0.0f);
  }
  const size_t total = dgcV_.size();
  for (size_t i = 0; i < params.size(); ++i) {
    if (isDense(*params[i])) params[i]->grad().copyToHost(dgcGrad_.data() + dgcOffset_[i]);
  }
  const float m = static_cast<float>(options_.dgcMomentum);
  for (size_t j = 0; j < total; ++j) {
    dgcU_[j] = m * dgcU_[j] + dgcGrad_[j];
    dgcV_[j] += dgcU_[j];
  }
  const double density = 1.0 - options_.dgcSparsity;
  const size_t k = std::min(total, std::max<size_t>(1, static_cast<size_t>(std::ceil(density * total))));
  // The k-th largest |v| (a selection over contiguous magnitudes), then the entries above it
  // and, in index order, as many equal to it as k leaves room for.
  std::vector<int> ids;
  ids.reserve(k);
  if (k < total) {
    std::vector<float> magnitude(total);
    for (size_t j = 0; j < total; ++j) magnitude[j] = std::fabs(dgcV_[j]);
    std::nth_element(magnitude.begin(), magnitude.begin() + (k - 1), magnitude.end(), std::greater<float>());
    const float threshold = magnitude[k - 1];
    for (size_t j = 0; j < total; ++j) {
      if (std::fabs(dgcV_[j]) > threshold) ids.push_back(static_cast<int>(j));
    }
    for (size_t j = 0; j < total && ids.size() < k; ++j) {
      if (std::fabs(dgcV_[j]) == threshold) ids.push_back(static_cast<int>(j));
    }
    std::sort(ids.begin(), ids.end());
  } else {
    for (size_t j = 0; j < total; ++j) ids.push_back(static_cast<int>(j));
  }
  // (index, value) pairs as two 32-bit words each, so one all-gather carries them.
  std::vector<int32_t> pairs(2 * k);
  for (size_t j = 0; j < k; ++j) {
    pairs[2 * j] = ids[j];
    std::memcpy(&pairs[2 * j + 1], &dgcV_[ids[j]], sizeof(float));
    dgcV_[ids[j]] = 0.0f;
    dgcU_[ids[j]] = 0.0f;
  }
  traffic_.dgcBytes += pairs.size() * sizeof(int32_t);
  std::vector<int32_t> all;
  {
    MpiTimer t(traffic_.mpiSeconds, "the all-gather of DGC gradient pairs");
    all = allGatherv(pairs, MPI_INT32_T, size_, "DGC (index, value) pairs");
  }
  std::fill(dgcGrad_.begin(), dgcGrad_.end(), 0.0f);
  for (size_t j = 0; j + 1 < all.size(); j += 2) {
    float value;
    std::memcpy(&value, &all[j + 1], sizeof(float));
    dgcGrad_[all[j]] += value;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!isDense(*params[i])) continue;
    Matrix& g = params[i]->grad();
    g.copyFromHost(dgcGrad_.data() + dgcOffset_[i], g.height(), g.width());
  }
}

void Collective::scaleLocal(const std::vector<ParameterPtr>& params) {
  const float more = static_cast<float>(size_ - 1);
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
    for (size_t i = 0; i < g.size(); ++i) g.data()[i] *= static_cast<float>(size_);
  }
}

bool Collective::averageDue(bool force) {
  if (!localSgd()) return false;
  if (!force) ++sinceAverage_;
  return sinceAverage_ > 0 && (force || sinceAverage_ >= options_.localSgdSteps);
}

void Collective::averageParameters(const std::vector<ParameterPtr>& params) {
  std::vector<Matrix*> values;
  for (const ParameterPtr& p : params) {
    if (isDense(*p)) values.push_back(&p->value());
  }
  ++traffic_.steps;
  reduceMatrices(values, 1.0f / static_cast<float>(size_));
  for (const ParameterPtr& p : params) {
    if (!p->isStatic() && p->sparseUpdate()) averageRows(*p);
  }
  sinceAverage_ = 0;
}

// A sparse_update table differs between ranks only in the rows some rank touched since the
// last average (as Geo-SGD pushes only those rows' changes): their ids are all-gathered and
// only their values averaged, unless some rank wrote the whole table.
void Collective::averageRows(Parameter& p) {
  std::vector<int> mine = std::move(sinceAverageRows_[p.name()]);
  sinceAverageRows_[p.name()].clear();
  const bool all = std::find(mine.begin(), mine.end(), -1) != mine.end();
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  if (all) mine.assign(1, -1);
  std::vector<int> ids;
  {
    MpiTimer t(traffic_.mpiSeconds, "the LocalSGD average of table rows");
    ids = allGatherv(mine, MPI_INT, size_, "averaged row ids");
  }
  traffic_.sparseBytes += mine.size() * sizeof(int);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (!ids.empty() && ids[0] == -1) {
    reduceMatrices({&p.value()}, 1.0f / static_cast<float>(size_));
    return;
  }
  const size_t cols = p.cols();
  PADDLE_ENFORCE(ids.size() * cols <= kMaxCount, UnsupportedError, "parameter '", p.name(), "': ", ids.size(),
                 " rows of ", cols, " floats are too many to average at once");
  Matrix& v = p.value();
  staging_.resize(ids.size() * cols);
  for (size_t i = 0; i < ids.size(); ++i) std::copy(v.row(ids[i]), v.row(ids[i]) + cols, staging_.data() + i * cols);
  traffic_.sparseBytes += staging_.size() * sizeof(float);
  {
    MpiTimer t(traffic_.mpiSeconds, "the LocalSGD average of table rows");
    reduceFloats(staging_.data(), staging_.size(), false);
  }
  const float scale = 1.0f / static_cast<float>(size_);
  for (size_t i = 0; i < ids.size(); ++i) {
    float* row = v.row(ids[i]);
    for (size_t c = 0; c < cols; ++c) row[c] = staging_[i * cols + c] * scale;
  }
}

#endif  // PADDLE_WITH_MPI

}  // namespace paddle
