// The distributed strategies behind GradientSync (trainer/GradientSync.h), each a small class
// over the shared MPI transport (trainer/Collective.h). MpiSync composes them per the options:
// one dense strategy (plain buckets, overlapped buckets, LocalSGD or DGC) and, with --local=0,
// the sharded tables. Compiled only in builds with MPI; no declaration here needs mpi.h.
#pragma once
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "trainer/Collective.h"
#include "trainer/Dgc.h"
#include "trainer/GradientSync.h"

namespace paddle {

// When backward has finished each parameter's gradient (per parameter: the lowest layer index
// writing it; 0 for the ones final only at the end), known where one machine trains.
struct BackwardOrder {
  std::vector<size_t> readyAt;
  size_t firstWorkingLayer = 0;  // the lowest-numbered layer that is not a data layer
};
BackwardOrder backwardOrder(GradientMachine& gm);

// sparse_update tables (not sharded): every rank's touched rows, all-gathered and added in rank
// order (the whole gradient all-reduced when some rank wrote every row).
class SparseRowSum {
 public:
  explicit SparseRowSum(Collective& world) : world_(world) {}
  void exchange(const std::vector<ParameterPtr>& params);

 private:
  void gatherRows(Parameter& p, const std::vector<int>& counts);
  Collective& world_;
  size_t planned_ = 0;
  std::vector<size_t> sparse_;  // the tables, in parameter order
  std::vector<float> staging_;
};

// Dense gradients all-reduced after backward, in buckets of about --bucket_cap_mb, in the
// order backward finishes them.
class PlainAllReduce : public GradientSync {
 public:
  PlainAllReduce(Collective& world, const BackwardOrder& order);
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;
  // The dense buckets alone (DGC's ramp-up steps).
  void reduceDense(const std::vector<ParameterPtr>& params);

 protected:
  struct Bucket {  // a run of dense gradients reduced in one call, launched when backward reaches readyAt
    std::vector<size_t> params;  // indices into the parameter list
    size_t floats = 0;
    size_t readyAt = 0;          // backward has finished layer readyAt (and those after it)
    std::vector<float> staging;  // host copy while in flight (unless reduced in place)
    float* data = nullptr;       // what is reduced
  };
  void plan(const std::vector<ParameterPtr>& params);
  void point(Bucket& b, const std::vector<ParameterPtr>& params);  // b.data: in place or staged
  void land(Bucket& b, const std::vector<ParameterPtr>& params);   // copy the sums back
  Collective& world_;
  BackwardOrder order_;
  size_t planned_ = 0;  // size of the parameter list the plan was made for
  std::vector<Bucket> buckets_;
  SparseRowSum sparse_;
};

// Buckets all-reduced by a communication thread (on a communicator of its own) while backward
// still runs: a bucket starts as soon as backward has passed every layer writing it.
class OverlappedAllReduce : public PlainAllReduce {
 public:
  OverlappedAllReduce(Collective& world, GradientMachine& gm, const BackwardOrder& order);
  ~OverlappedAllReduce() override;
  // After backward, on every rank at the same point (before any other collective: two threads
  // inside MPI at once contend for its lock): launches the buckets backward did not (all of
  // them where this rank had no data) and waits for them all.
  void gradientsReady(const std::vector<ParameterPtr>& params) override;
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;
  // A new step: no bucket launched yet. (A step skipped for a non-finite cost ends after
  // gradientsReady, without exchangeGradients: its buckets must not count as this step's.)
  void beforeForward(const std::vector<Argument>&) override { launched_ = done_ = 0; }

 private:
  void onLayerDone(size_t layer);  // the machine's backward hook: the buckets now ready
  void launch(Bucket& b, const std::vector<ParameterPtr>& params);
  void communicate();  // the communication thread
  GradientMachine& machine_;
  struct Comm;
  std::unique_ptr<Comm> comm_;  // the thread's communicator (a duplicate of the world's)
  size_t launched_ = 0;         // buckets launched this step (in bucket order)
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Bucket*> queue_;
  size_t done_ = 0;  // buckets the thread finished this step
  bool stop_ = false;
};

// LocalSGD: each rank steps on its own gradients scaled by N (so that its step is what a step
// on the whole batch would be), and the parameter values are averaged every K-th step and at
// each pass end, so every rank then holds the same bits.
class LocalSgd : public GradientSync {
 public:
  explicit LocalSgd(Collective& world) : world_(world) {}
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;  // scales them
  void stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;
  void passEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;

 private:
  void average(ParameterUpdater& updater, const std::vector<ParameterPtr>& params);
  void averageRows(Parameter& p);  // a sparse_update table: the rows some rank touched
  Collective& world_;
  int64_t sinceAverage_ = 0;  // local steps since the last average
  std::map<std::string, std::vector<int>> sinceAverageRows_;  // and rows of tables touched (-1: all)
  std::vector<float> staging_;
};

// DGC: the top-k (index, value) pairs of each rank's accumulated gradient (trainer/Dgc.h),
// all-gathered and added in rank order; plain buckets before --dgc_rampup_begin_step.
class DgcSync : public GradientSync {
 public:
  DgcSync(Collective& world, const BackwardOrder& order) : world_(world), plain_(world, order) {}
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;
  // --dgc_momentum > 0, past the ramp-up: the optimizer's own momentum must be off.
  bool correctsMomentum() const override;

 private:
  Collective& world_;
  PlainAllReduce plain_;
  SparseRowSum sparse_{world_};
  int64_t step_ = 0;  // gradient exchanges so far (DGC's clock)
  std::vector<size_t> offset_;  // per dense parameter, its offset in the flat accumulator
  DgcAccumulator accumulator_;
  std::vector<float> grad_;
  std::vector<int32_t> pairs_;
};

// Sharded tables (paddle train --local=0, trainer/ShardedTables.cpp): every
// sparse_remote_update table keeps rows [R r/N, R (r+1)/N) on rank r only (value and optimizer
// state); its lookups read their ids from data layers.
class ShardedTables : public GradientSync {
 public:
  ShardedTables(Collective& world, const SyncSetup& setup);
  bool empty() const { return shards_.empty(); }
  // Each rank fetches the rows its batch reads from their owners (MPI_Alltoallv).
  void beforeForward(const std::vector<Argument>& inArgs) override;
  // Gradient rows go to their owners, which add them in rank order.
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;
  // When the step recorded parameter statistics: each table's become the whole table's.
  void stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;
  // Saving is collective: rank 0 announces each step, the others serve their rows.
  void beforeSave(SaveStep step) override;
  void serveSaves(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;
  std::vector<ShardedRows> shardedRows() const override;

 private:
  struct Shard;
  int announce(SaveStep step);
  Collective& world_;
  std::vector<std::shared_ptr<Shard>> shards_;
};

// The strategies one distributed trainer uses, called in a fixed order at each point.
class MpiSync : public GradientSync {
 public:
  explicit MpiSync(const SyncSetup& setup);
  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  void setOptions(const CollectiveOptions& o) override;
  CollectiveTraffic takeTraffic() override;
  void setShardedData(bool on) override { shardedData_ = on; }
  void sum(double* data, size_t n) override { world_.sum(data, n); }
  std::vector<double> gather(const std::vector<double>& mine, const char* what) override {
    return world_.gather(mine, what);
  }
  std::vector<Argument> share(const std::vector<Argument>& batch) override;
  void beforeForward(const std::vector<Argument>& share) override {
    dense_->beforeForward(share);
    shards_.beforeForward(share);
  }
  void gradientsReady(const std::vector<ParameterPtr>& params) override { dense_->gradientsReady(params); }
  void reduceCostAndSamples(double* costAndSamples) override;
  void exchangeGradients(const std::vector<ParameterPtr>& params) override;
  bool correctsMomentum() const override { return dense_->correctsMomentum(); }
  void stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;
  void passEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override;
  void beforeSave(SaveStep step) override { shards_.beforeSave(step); }
  void serveSaves(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) override {
    shards_.serveSaves(updater, params);
  }
  std::vector<ShardedRows> shardedRows() const override { return shards_.shardedRows(); }

 private:
  Collective world_;
  GradientMachine* single_ = nullptr;  // the machine, when it is the only replica (overlap needs it)
  BackwardOrder order_;                // known where the overlap could run
  ShardedTables shards_;
  std::unique_ptr<GradientSync> dense_;
  bool shardedData_ = false;
};

}  // namespace paddle
