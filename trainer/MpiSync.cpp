// The composite of the distributed strategies (MpiSync.h), and its registration as the
// factory makeGradientSync uses under mpiexec.
#include "trainer/MpiSync.h"

#include "engine/Errors.h"
#include "trainer/GradientMachine.h"
#include "trainer/Optimizers.h"
#include "trainer/Trainer.h"

namespace paddle {

MpiSync::MpiSync(const SyncSetup& setup) : shards_(world_, setup) {
  const auto& machines = *setup.machines;
  // Overlap needs MPI_THREAD_MULTIPLE and one replica (with replicas, gradients add up after backward).
  if (world_.threadMultiple() && machines.size() == 1) {
    single_ = machines[0].get();
    order_ = backwardOrder(*single_);
  }
  setOptions(CollectiveOptions());
}

void MpiSync::setOptions(const CollectiveOptions& o) {
  world_.setOptions(o);
  dense_.reset();  // (an overlapped one's thread and communicator go first)
  if (o.localSgdSteps > 0) {
    dense_ = std::make_unique<LocalSgd>(world_);
  } else if (o.dgcSparsity >= 0) {
    dense_ = std::make_unique<DgcSync>(world_, order_);
  } else if (o.overlap && single_) {
    dense_ = std::make_unique<OverlappedAllReduce>(world_, *single_, order_);
  } else {
    dense_ = std::make_unique<PlainAllReduce>(world_, order_);
  }
}

CollectiveTraffic MpiSync::takeTraffic() {
  const CollectiveTraffic t = world_.traffic();
  world_.traffic() = CollectiveTraffic();
  return t;
}

std::vector<Argument> MpiSync::share(const std::vector<Argument>& batch) {
  if (shardedData_) return batch;  // each rank reads batches of its own
  // rank r of N takes sequences [n r/N, n (r+1)/N), so N ranks split a batch exactly as
  // --trainer_count=N threads do
  const size_t n = batch.empty() ? 0 : batch[0].numSequences();
  const size_t r = static_cast<size_t>(world_.rank()), ranks = static_cast<size_t>(world_.size());
  std::vector<Argument> mine;
  for (const Argument& a : batch) mine.push_back(sliceArgument(a, n * r / ranks, n * (r + 1) / ranks));
  return mine;
}

void MpiSync::reduceCostAndSamples(double* costAndSamples) {
  // (a split batch's samples are the whole batch's already)
  world_.sum(costAndSamples, shardedData_ ? 2 : 1);
}

void MpiSync::exchangeGradients(const std::vector<ParameterPtr>& params) {
  const CollectiveOptions& o = world_.options();
  PADDLE_ENFORCE(shards_.empty() || (o.localSgdSteps <= 0 && o.dgcSparsity < 0), ConfigError,
                 "sharded tables (--local=0) exchange every step: not with --local_sgd_steps or --dgc_sparsity");
  dense_->exchangeGradients(params);
  shards_.exchangeGradients(params);
}

void MpiSync::stepEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  shards_.stepEnd(updater, params);  // (when recording parameter statistics)
  dense_->stepEnd(updater, params);  // (LocalSGD: the average, when due)
}

void MpiSync::passEnd(ParameterUpdater& updater, const std::vector<ParameterPtr>& params) {
  dense_->passEnd(updater, params);
  // Every rank catches its lazy decay up here, so rank 0 saving alone changes nothing.
  updater.catchUp();
}

namespace {
[[maybe_unused]] const bool registered =
    registerDistributedSync([](const SyncSetup& setup) -> std::unique_ptr<GradientSync> {
      return std::make_unique<MpiSync>(setup);
    });
}  // namespace

}  // namespace paddle
