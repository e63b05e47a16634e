// How the processes of a data-parallel job (`mpiexec -n N paddle train`) keep their
// parameters in step: the trainer calls one GradientSync at fixed points of each step, and
// a strategy decides what travels. A single process uses the no-op one; the MPI strategies
// (plain and overlapped all-reduce, LocalSGD, DGC, sharded tables: trainer/MpiSync.h) are
// compiled only in builds with MPI, where they register their factory.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/Argument.h"
#include "engine/Parameter.h"

namespace paddle {

class GradientMachine;
class ParameterUpdater;
class Json;

// How gradients travel (paddle train's --bucket_cap_mb, --overlap_allreduce, --local_sgd_steps,
// --dgc_sparsity, --dgc_rampup_begin_step, --dgc_momentum, --collective_timeout).
struct CollectiveOptions {
  double bucketMb = 1;   // dense gradients are all-reduced in runs of about this many MB
  bool overlap = true;   // start a bucket's all-reduce while backward still runs
  int localSgdSteps = 0;  // LocalSGD: > 0 averages the parameters every K steps instead
  // DGC (deep gradient compression): < 0 off; else the fraction of each step's accumulated
  // dense gradient entries that stays behind (0.99: 1% travel, as (index, value) pairs).
  double dgcSparsity = -1;
  int dgcRampupBeginStep = 0;  // plain all-reduce for the steps before this one
  double dgcMomentum = 0;      // DGC's local momentum correction (use it with plain SGD)
  double timeoutSeconds = 0;   // a wait in one MPI exchange longer than this ends the job; <= 0: off
  // Dense gradient all-reduces send bf16 (each rank's gradient rounded to bfloat16, the sum
  // of each pair of contributions taken in fp32 and rounded again): half the bytes.
  bool bf16Gradients = false;
};

// What the exchanges of one process cost, since the last takeTraffic().
struct CollectiveTraffic {
  int64_t steps = 0;           // gradient exchanges
  uint64_t denseBytes = 0;     // gradient (or, under LocalSGD, parameter) bytes put into all-reduces
  uint64_t sparseBytes = 0;    // row ids + rows this process contributed to all-gathers
  uint64_t dgcBytes = 0;       // DGC (index, value) pairs this process contributed
  uint64_t earlyBytes = 0;     // dense gradient bytes whose all-reduce started during backward
  double mpiSeconds = 0;       // time the training thread waited on MPI (transfer + the others)
};

// A table whose rows are spread over the processes: what this one holds and has fetched.
struct ShardedRows {
  std::string name;
  size_t rows = 0;      // the whole table's
  size_t resident = 0;  // rows of the value's range that take memory here
  size_t fetched = 0;   // rows fetched from their owners for the last batch
};

// The steps of saving sharded tables together: rank 0 announces each, the others follow.
enum class SaveStep { kListen = -1, kDone = 0, kParameters = 1, kOptimizerState = 2 };

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  virtual void setOptions(const CollectiveOptions&) {}
  // The traffic since the last call (then reset).
  virtual CollectiveTraffic takeTraffic() { return {}; }
  // --data_sharding=files: every process reads its own batches (none is split, sample counts add up).
  virtual void setShardedData(bool) {}

  // Statistics: n doubles summed over the processes in place; every process's doubles in
  // process order (`what` names the exchange for the watchdog).
  virtual void sum(double*, size_t) {}
  virtual std::vector<double> gather(const std::vector<double>& mine, const char* /*what*/) { return mine; }

  // --- the fixed points of a step, in order ---
  // The part of a batch this process trains on (or tests: the whole batch).
  virtual std::vector<Argument> share(const std::vector<Argument>& batch) { return batch; }
  // Before a forward on `share`, on every process at once (sharded tables fetch the rows it reads).
  virtual void beforeForward(const std::vector<Argument>& /*share*/) {}
  // Backward is done: gradient exchanges started during it complete (buckets start earlier,
  // at each layer's end, through the machine's backward hook).
  virtual void gradientsReady(const std::vector<ParameterPtr>&) {}
  // [cost, samples] of this process's batch become the whole step's.
  virtual void reduceCostAndSamples(double* /*costAndSamples*/) {}
  // Before the update: every process ends with the gradients the update applies.
  virtual void exchangeGradients(const std::vector<ParameterPtr>&) {}
  // This step's gradient already carries momentum: the optimizer's own must be off.
  virtual bool correctsMomentum() const { return false; }
  // After the update (parameter statistics, periodic averaging).
  virtual void stepEnd(ParameterUpdater&, const std::vector<ParameterPtr>&) {}
  // At the end of a pass, before saving.
  virtual void passEnd(ParameterUpdater&, const std::vector<ParameterPtr>&) {}

  // --- saving ---
  // Before rank 0 saves parameters or optimizer state (a collective where tables are sharded).
  virtual void beforeSave(SaveStep) {}
  // On every process after each saving: rank 0 ends it; the others serve their rows until then.
  virtual void serveSaves(ParameterUpdater&, const std::vector<ParameterPtr>&) {}
  virtual std::vector<ShardedRows> shardedRows() const { return {}; }
};

// Which strategy a trainer gets: the machines (replicas of the main one, [0]) and the updater.
struct SyncSetup {
  bool distributed = false;  // under mpiexec: data parallel over the ranks
  bool shardTables = false;  // --local=0: sparse_remote_update tables split over the ranks
  const std::vector<std::shared_ptr<GradientMachine>>* machines = nullptr;
  const ParameterUpdater* updater = nullptr;
  const Json* optConfig = nullptr;
};
std::unique_ptr<GradientSync> makeGradientSync(const SyncSetup& setup);

// A build with MPI registers its strategies' factory here (trainer/MpiSync.cpp, at load time).
using SyncFactory = std::function<std::unique_ptr<GradientSync>(const SyncSetup&)>;
bool registerDistributedSync(SyncFactory factory);
bool distributedCompiled();  // the engine was built with MPI

}  // namespace paddle
