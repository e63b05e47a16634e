// Dense gradients all-reduced in buckets, after backward (PlainAllReduce) or while it runs
// (OverlappedAllReduce), and sparse_update tables' touched rows all-gathered (SparseRowSum).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <numeric>
#include <set>

#include "engine/Errors.h"
#include "trainer/GradientMachine.h"
#include "trainer/MpiSync.h"

namespace paddle {

BackwardOrder backwardOrder(GradientMachine& gm) {
  BackwardOrder order;
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
  order.readyAt.assign(params.size(), 0);
  for (size_t i = 0; i < params.size(); ++i) {
    if (lowest[i] != SIZE_MAX && !inGroups.count(params[i]->name())) order.readyAt[i] = lowest[i];
  }
  // Data layers have no backward to do: buckets launched after the first other layer are not early.
  const auto& data = gm.dataLayers();
  while (order.firstWorkingLayer < gm.layers().size() &&
         std::count(data.begin(), data.end(), gm.layers()[order.firstWorkingLayer].get())) {
    ++order.firstWorkingLayer;
  }
  return order;
}

// ---------------------------------------------------------------- SparseRowSum

void SparseRowSum::exchange(const std::vector<ParameterPtr>& params) {
  if (planned_ != params.size()) {
    sparse_.clear();
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i]->isStatic() && params[i]->sparseUpdate() && !params[i]->sharded()) sparse_.push_back(i);
    }
    planned_ = params.size();
  }
  if (sparse_.empty()) return;
  CollectiveTraffic& traffic = world_.traffic();
  const int ranks = world_.size();
  // Per sparse parameter and rank: how many rows it touched, or -1 for the whole gradient.
  const size_t n = sparse_.size();
  std::vector<int> mine(n), all(n * ranks);
  for (size_t s = 0; s < n; ++s) {
    const Parameter& p = *params[sparse_[s]];
    mine[s] = p.allRowsTouched() ? -1 : static_cast<int>(p.touchedRows().size());
  }
  {
    MpiTimer t(traffic.mpiSeconds, "the all-gather of sparse gradient rows");
    MPI_Allgather(mine.data(), static_cast<int>(n), MPI_INT, all.data(), static_cast<int>(n), MPI_INT,
                  MPI_COMM_WORLD);
  }
  std::vector<int> counts(ranks);
  for (size_t s = 0; s < n; ++s) {
    Parameter& p = *params[sparse_[s]];
    bool dense = false;
    for (int r = 0; r < ranks; ++r) {
      counts[r] = all[r * n + s];
      dense = dense || counts[r] < 0;
    }
    if (dense) {  // some rank wrote every row (a dense writer): sum the whole table
      Matrix& g = p.grad();
      traffic.denseBytes += world_.gradientBytes(g.size());
      MpiTimer t(traffic.mpiSeconds, "the all-gather of sparse gradient rows");
      world_.reduceGradients(g.data(), g.size());
    } else {
      gatherRows(p, counts);
    }
  }
}

void SparseRowSum::gatherRows(Parameter& p, const std::vector<int>& counts) {
  const int ranks = world_.size();
  CollectiveTraffic& traffic = world_.traffic();
  const std::vector<int> own = p.touchedRows();  // copied: marking rows below appends to it
  const size_t cols = p.cols();
  std::vector<int> idOffsets(ranks), rowCounts(ranks), rowOffsets(ranks);
  size_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    idOffsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  PADDLE_ENFORCE(total * cols <= kMaxMpiCount, UnsupportedError, "parameter '", p.name(), "': ", total,
                 " touched rows of ", cols, " floats are too many for one exchange");
  for (int r = 0; r < ranks; ++r) {
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
  traffic.sparseBytes += own.size() * (sizeof(int) + cols * sizeof(float));
  {
    MpiTimer t(traffic.mpiSeconds, "the all-gather of sparse gradient rows");
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

// ---------------------------------------------------------------- PlainAllReduce

PlainAllReduce::PlainAllReduce(Collective& world, const BackwardOrder& order)
    : world_(world), order_(order), sparse_(world) {}

void PlainAllReduce::plan(const std::vector<ParameterPtr>& params) {
  buckets_.clear();
  std::vector<size_t>& readyAt = order_.readyAt;
  if (readyAt.size() != params.size()) readyAt.assign(params.size(), 0);
  // Dense gradients in the order backward finishes them (later layers first).
  std::vector<size_t> order(params.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return readyAt[a] > readyAt[b]; });
  const size_t bucketFloats =
      std::max<size_t>(1, static_cast<size_t>(world_.options().bucketMb * (1 << 20) / sizeof(float)));
  for (size_t i : order) {
    const Parameter& p = *params[i];
    if (!isDense(p)) continue;
    if (buckets_.empty() || buckets_.back().floats + p.size() > bucketFloats) {
      buckets_.emplace_back();
      buckets_.back().readyAt = readyAt[i];
    }
    buckets_.back().params.push_back(i);
    buckets_.back().floats += p.size();
    buckets_.back().readyAt = std::min(buckets_.back().readyAt, readyAt[i]);
  }
  planned_ = params.size();
}

void PlainAllReduce::point(Bucket& b, const std::vector<ParameterPtr>& params) {
  world_.traffic().denseBytes += world_.gradientBytes(b.floats);
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

void PlainAllReduce::land(Bucket& b, const std::vector<ParameterPtr>& params) {
  if (b.data != b.staging.data()) return;  // reduced in place
  size_t offset = 0;
  for (size_t i : b.params) {
    Matrix& g = params[i]->grad();
    g.copyFromHost(b.staging.data() + offset, g.height(), g.width());
    offset += g.size();
  }
}

void PlainAllReduce::reduceDense(const std::vector<ParameterPtr>& params) {
  if (params.size() != planned_) plan(params);
  for (Bucket& b : buckets_) {
    point(b, params);
    {
      MpiTimer t(world_.traffic().mpiSeconds, "the all-reduce of gradients");
      world_.reduceGradients(b.data, b.floats);
    }
    land(b, params);
  }
}

void PlainAllReduce::exchangeGradients(const std::vector<ParameterPtr>& params) {
  ++world_.traffic().steps;
  reduceDense(params);
  sparse_.exchange(params);
}

// ---------------------------------------------------------------- OverlappedAllReduce

struct OverlappedAllReduce::Comm {
  MPI_Comm comm = MPI_COMM_NULL;
};

OverlappedAllReduce::OverlappedAllReduce(Collective& world, GradientMachine& gm, const BackwardOrder& order)
    : PlainAllReduce(world, order), machine_(gm), comm_(new Comm) {
  // The communication thread's collectives run beside the training thread's (cost, statistics):
  // on a communicator of their own, so the two streams never mix.
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_->comm);
  thread_ = std::thread([this] { communicate(); });
  gm.setBackwardHook([this](size_t layer) { onLayerDone(layer); });
}

OverlappedAllReduce::~OverlappedAllReduce() {
  machine_.setBackwardHook(nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_->comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_->comm);
}

void OverlappedAllReduce::launch(Bucket& b, const std::vector<ParameterPtr>& params) {
  point(b, params);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(&b);
  }
  cv_.notify_all();
}

void OverlappedAllReduce::communicate() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Bucket* b = queue_.front();
    queue_.pop_front();
    lock.unlock();
    world_.reduceGradients(b->data, b->floats, &comm_->comm);
    lock.lock();
    ++done_;
    cv_.notify_all();
  }
}

void OverlappedAllReduce::onLayerDone(size_t layer) {
  const auto& params = machine_.parameters();
  if (planned_ != params.size()) plan(params);
  while (launched_ < buckets_.size() && buckets_[launched_].readyAt >= layer) {
    if (layer > order_.firstWorkingLayer) world_.traffic().earlyBytes += buckets_[launched_].floats * sizeof(float);
    launch(buckets_[launched_++], params);
  }
}

void OverlappedAllReduce::gradientsReady(const std::vector<ParameterPtr>& params) {
  if (planned_ != params.size()) plan(params);
  while (launched_ < buckets_.size()) launch(buckets_[launched_++], params);  // backward skipped (no data)
  MpiTimer t(world_.traffic().mpiSeconds, "the all-reduce of gradients");
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_ == launched_; });
}

void OverlappedAllReduce::exchangeGradients(const std::vector<ParameterPtr>& params) {
  ++world_.traffic().steps;
  gradientsReady(params);  // (done already: nothing left to launch or wait for)
  for (Bucket& b : buckets_) land(b, params);
  launched_ = done_ = 0;
  sparse_.exchange(params);
}

}  // namespace paddle
