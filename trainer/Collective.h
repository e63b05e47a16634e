// Data-parallel training across processes (`mpiexec -n N paddle train`): after
// backward, every rank's gradients are summed over MPI_COMM_WORLD, so each rank
// applies the same update to the same parameters. MPI is the transport; this
// pair of files is the only place that sees mpi.h (built with PADDLE_WITH_MPI;
// otherwise joining throws "built without MPI").
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../layers/Argument.h"
#include "../layers/Parameter.h"

namespace paddle {

class GradientMachine;
class ParameterUpdater;

// The collective watchdog (paddle train --collective_timeout): a thread that ends the job
// (MPI_Abort), naming this rank and the operation, when a thread has waited in one MPI
// exchange for longer than `seconds` (a rank stuck or gone would otherwise hang the others).
// seconds <= 0: off.
void setCollectiveTimeout(double seconds, int rank, int size);
void enterCollective(const char* what);  // this thread now waits in MPI for `what`
void leaveCollective();

// Adds the time the training thread spends blocked on MPI to the traffic statistics, and
// shows the wait to the watchdog.
class MpiTimer {
 public:
  explicit MpiTimer(double& total, const char* what = "an MPI exchange of gradients or statistics")
      : total_(total), start_(std::chrono::steady_clock::now()) {
    enterCollective(what);
  }
  ~MpiTimer() {
    leaveCollective();
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

// What the exchanges of one rank cost, since the last reset.
struct CollectiveTraffic {
  int64_t steps = 0;           // gradient exchanges
  uint64_t denseBytes = 0;     // gradient (or, under LocalSGD, parameter) bytes put into all-reduces
  uint64_t sparseBytes = 0;    // row ids + rows this rank contributed to all-gathers
  uint64_t dgcBytes = 0;       // DGC (index, value) pairs this rank contributed
  uint64_t earlyBytes = 0;     // dense gradient bytes whose all-reduce started during backward
  double mpiSeconds = 0;       // time the training thread waited on MPI (transfer + the others)
};

// How gradients travel (paddle train's --bucket_cap_mb, --overlap_allreduce, --local_sgd_steps,
// --dgc_sparsity, --dgc_rampup_begin_step, --dgc_momentum).
struct CollectiveOptions {
  double bucketMb = 1;   // dense gradients are all-reduced in runs of about this many MB
  bool overlap = true;   // start a bucket's all-reduce while backward still runs
  int localSgdSteps = 0;  // LocalSGD: > 0 averages the parameters every K steps instead
  // DGC (deep gradient compression): < 0 off; else the fraction of each step's accumulated
  // dense gradient entries that stays behind (0.99: 1% travel, as (index, value) pairs).
  double dgcSparsity = -1;
  int dgcRampupBeginStep = 0;  // plain all-reduce for the steps before this one
  double dgcMomentum = 0;      // DGC's local momentum correction (use it with plain SGD)
  double timeoutSeconds = 0;   // --collective_timeout (setCollectiveTimeout); <= 0: off
};

class Collective {
 public:
  // Joins MPI_COMM_WORLD; MPI must already be initialised (mpi4py does it).
  Collective();
  ~Collective();
  static bool compiled();  // the engine was built with MPI
  int rank() const { return rank_; }
  int size() const { return size_; }
  void setOptions(const CollectiveOptions& o);
  const CollectiveOptions& options() const { return options_; }
  bool localSgd() const { return options_.localSgdSteps > 0; }
  // This step's DGC corrects momentum locally (--dgc_momentum > 0, past the ramp-up): the
  // optimizer's own momentum must then be off, or the gradient gets momentum twice.
  bool correctsMomentum() const {
    return options_.dgcSparsity >= 0 && options_.dgcMomentum > 0 && step_ > options_.dgcRampupBeginStep;
  }

  // Sums n doubles across ranks in place (statistics: cost, evaluator counts).
  void sum(double* data, size_t n);
  // Every rank's n doubles (n may differ by rank), concatenated in rank order; `what` names
  // the exchange for the watchdog.
  std::vector<double> gather(const std::vector<double>& mine, const char* what = "the all-gather of statistics");

  // Overlap: attaches to `gm` (the only replica), so that a bucket's all-reduce starts as
  // soon as backward has passed every layer that writes its parameters' gradients.
  void attach(GradientMachine& gm);
  // Overlap: after backward, on every rank at the same point (before any other collective:
  // two threads inside MPI at once contend for its lock), launches the buckets backward did
  // not (all of them where this rank had no data) and waits for them all.
  void finishBackward(const std::vector<ParameterPtr>& params);
  // LocalSGD: scales this rank's gradients by N instead, so that its step is what a step on
  // the whole batch would be, and the average of the N steps is plain data parallel's one.
  // Otherwise sums the gradients of every non-static parameter across ranks: dense ones in
  // buckets (the ones backward already started are waited for), or top-k pairs under DGC;
  // sparse_update ones as their touched rows only (unless some rank wrote the whole
  // gradient this step). Every rank ends with the same sums, added in the same order.
  void sumGradients(const std::vector<ParameterPtr>& params);
  // LocalSGD: after a rank's own update, the parameter values are averaged every K-th step
  // and at the end of each pass, so every rank then holds the same bits.
  // Whether this step (force: the end of a pass) averages; sparse_update tables must have
  // caught up on their lazy decay before.
  bool averageDue(bool force);
  void averageParameters(const std::vector<ParameterPtr>& params);
  // Sharded tables (paddle train --local=0, trainer/ShardedTables.cpp): every
  // sparse_remote_update table of `gm` keeps rows [R r/N, R (r+1)/N) on rank r only (value and
  // optimizer state); its lookups must read their ids from data layers.
  void shardTables(GradientMachine& gm);
  bool sharding() const { return !shards_.empty(); }
  // Before a forward on `inArgs` (this rank's share, in data layer order), on every rank at
  // once: each rank fetches the rows its batch reads from their owners (MPI_Alltoallv).
  void fetchRows(const std::vector<Argument>& inArgs);
  // After the update of a step that records --show_parameter_stats_period's statistics, on
  // every rank: each sharded table's value and gradient statistics become the whole table's
  // (every rank's rows), as one process would log them.
  void reduceShardStats(ParameterUpdater& updater);
  // Saving a sharded table is collective: rank 0 announces each step (the others wait for
  // kListen's answer, or check theirs), kDone ends a saving.
  enum Announcement { kListen = -1, kDone = 0, kSaveParameters = 1, kSaveOptimizerState = 2 };
  int announce(int what);
  const CollectiveTraffic& traffic() const { return traffic_; }
  void resetTraffic() { traffic_ = CollectiveTraffic(); }

 private:
  // A run of dense gradients reduced in one call, launched when backward reaches readyAt.
  struct Bucket {
    std::vector<size_t> params;  // indices into the parameter list
    size_t floats = 0;
    size_t readyAt = 0;          // backward has finished layer readyAt (and those after it)
    std::vector<float> staging;  // host copy while in flight (unless reduced in place)
    float* data = nullptr;       // what the communication thread reduces
  };
  void plan(const std::vector<ParameterPtr>& params);
  void launch(Bucket& b, const std::vector<ParameterPtr>& params);  // copy in, queue
  void land(Bucket& b, const std::vector<ParameterPtr>& params);    // copy the sums back
  bool overlapping() const;  // buckets start during backward
  void onLayerDone(size_t layer);
  void waitLaunched();
  void communicate();  // the communication thread
  void point(Bucket& b, const std::vector<ParameterPtr>& params);  // b.data: in place or staged
  void reduceFloats(float* data, size_t n, bool onThreadComm);
  // Sums host copies of the matrices over ranks, run by run through staging_, times scale.
  void reduceMatrices(const std::vector<Matrix*>& ms, float scale);
  void gatherRows(Parameter& p, const std::vector<int>& counts);
  void sumSparse(const std::vector<ParameterPtr>& params);
  void sumDgc(const std::vector<ParameterPtr>& params);
  void scaleLocal(const std::vector<ParameterPtr>& params);
  void averageRows(Parameter& p);  // LocalSGD on a sparse_update table
  // Sharded tables: gradient rows go to their owners; the table's file streams into rank 0.
  struct Shard {
    Parameter* param;
    std::vector<size_t> dataLayers;  // the inputs (data layer indices) whose ids it looks up
    std::vector<float> rows, sums;   // rows sent and gradient rows received (reused step after step)
  };
  void sendRowsToOwners(Shard& shard);
  void writeShards(const Parameter& p, const Matrix& rows, std::ostream* out);
  int ownerOf(const Parameter& p, int row) const;
  std::vector<Shard> shards_;

  int rank_ = 0, size_ = 1;
  CollectiveOptions options_;
  size_t planned_ = 0;  // size of the parameter list the plan was made for
  std::vector<Bucket> buckets_;
  std::vector<size_t> sparse_;  // sparse_update parameters, in order
  std::vector<float> staging_;
  CollectiveTraffic traffic_;
  int64_t step_ = 0;          // gradient exchanges so far (DGC's clock)
  int64_t sinceAverage_ = 0;  // LocalSGD: local steps since the last average
  std::map<std::string, std::vector<int>> sinceAverageRows_;  // and rows of tables touched (-1: all)

  // Overlap: the attached machine, which layers write each parameter, and the thread.
  GradientMachine* machine_ = nullptr;
  std::vector<size_t> readyAt_;  // per parameter: the lowest layer index writing it
  size_t launched_ = 0;          // buckets launched this step (in bucket order)
  size_t firstWorkingLayer_ = 0;  // the lowest-numbered layer that is not a data layer
  bool threadMpi_ = false;       // MPI was initialised with MPI_THREAD_MULTIPLE
  struct Comm;
  std::unique_ptr<Comm> gradComm_;  // the thread's communicator (a duplicate of the world's)
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Bucket*> queue_;
  size_t done_ = 0;  // buckets the thread finished this step
  bool stop_ = false;

  // DGC: per dense parameter, its offset in the flat accumulators u (momentum) and v.
  std::vector<size_t> dgcOffset_;
  std::vector<float> dgcU_, dgcV_, dgcGrad_;
};

}  // namespace paddle
