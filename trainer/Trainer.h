// The training engine behind `paddle train`: a gradient machine (replicated
// over --trainer_count threads), the parameter updater and the evaluators,
// with v1's running statistics (pass totals and the period since the last log).
// The Python CLI feeds batches and prints; all math runs here.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "trainer/Evaluator.h"
#include "trainer/GradientMachine.h"
#include "trainer/GradientSync.h"
#include "trainer/Optimizers.h"
#include "trainer/Replicas.h"

namespace paddle {

// The replicas --trainer_count=0 (the paddle command's default) trains with: one per CPU
// thread when the model's convolutions do so much work per parameter that whole sub-batches
// per thread beat splitting each op, else 1 (the thread pool splits the ops).
int autoReplicas(const Json& modelConfig, int64_t batchSize, bool useGpu, bool distributed);

struct TrainerOptions {
  bool useGpu = false;
  int trainerCount = 1;  // replicas; 0: chosen from the model and the threads (autoReplicas)
  uint64_t seed = 1;
  std::string predictFile;  // v1 --predict_file: the validation layers' samples of each pass
  // Data parallel over the MPI ranks (trainer/GradientSync.h): every rank is given the same
  // batch, trains on its share of the sequences and sums gradients and statistics with the others.
  bool distributed = false;
  // Distributed with --data_sharding=files: each rank reads its own files and trains on all of
  // its batches (their sample counts are summed across ranks).
  bool shardedData = false;
  // Distributed with --local=0: sparse_remote_update tables are sharded over the ranks
  // (trainer/ShardedTables.cpp).
  bool shardTables = false;
};

// Running cost / sample count and evaluators over some span of batches.
struct EvalStats {
  double cost = 0;
  int64_t samples = 0;
  std::vector<std::unique_ptr<Evaluator>> evaluators;
  void start();
  double avgCost() const { return samples ? cost / samples : 0.0; }
  std::string evalString() const;  // "name=value name2=value2 "
};

class Trainer {
 public:
  // trainerConfig: JSON of a v1 TrainerConfig (model_config + opt_config ...).
  Trainer(const std::string& trainerConfigJson, const TrainerOptions& options);
  // Over an existing machine built from the same model config: its parameter
  // values are used as they are (not randomized).
  Trainer(const std::string& trainerConfigJson, const TrainerOptions& options,
          std::shared_ptr<GradientMachine> main);

  GradientMachine& machine() { return *machines_[0]; }
  const std::shared_ptr<GradientMachine>& sharedMachine() const { return machines_[0]; }
  ParameterUpdater& updater() { return updater_; }
  const Json& config() const { return config_; }
  int64_t batchSize() const { return batchSize_; }
  int replicas() const { return static_cast<int>(machines_.size()); }

  void randomizeParameters();
  void loadParameters(const std::string& dir);  // one v1 file per parameter
  // Saves the (model-averaged, when ModelAverage is on) parameter values.
  void saveParameters(const std::string& dir);
  // Optimizer state (momentum, moments, counters) in dir, for exact resumption.
  void saveOptimizerState(const std::string& dir) const;
  void loadOptimizerState(const std::string& dir);

  void startPass(int pass);
  void finishPass();
  // Forward, backward and update on one batch of `numSamples` samples.
  void trainOneBatch(const std::vector<Argument>& inArgs, int64_t numSamples);
  const EvalStats& passStats() const { return pass_; }
  const EvalStats& periodStats() const { return period_; }
  void startPeriod() { period_.start(); }  // after each log line

  // Testing uses the averaged parameters under ModelAverage (v1).
  void startTest();
  void testOneBatch(const std::vector<Argument>& inArgs, int64_t numSamples);
  void finishTest();
  // Forward in test mode on the main machine only, without statistics.
  void forwardOnly(const std::vector<Argument>& inArgs) { machines_[0]->forward(inArgs, PASS_TEST); }
  const EvalStats& testStats() const { return test_; }
  // How the processes keep in step (the no-op strategy in a single process).
  GradientSync& sync() { return *sync_; }
  // How the replicas of this process combine (Trainer.setCollectiveOptions reaches GPU replicas).
  Replicas& replicaStrategy() { return *replicas_; }
  bool distributed() const { return options_.distributed; }
  void setShardedData(bool on) {
    options_.shardedData = on;
    sync_->setShardedData(on);
  }
  // Sharded tables: rank 0 ends a saving; the other ranks send their rows while it saves.
  void serveShards();
  // --skip_nonfinite_batches=N: a batch whose cost is not finite is dropped (no update, the
  // parameters as they were before it) instead of stopping, N times in the run at most.
  void setSkipNonFiniteBatches(int64_t limit) { skipLimit_ = limit; }
  // Why the last trained batch was skipped ("" when it was not).
  const std::string& lastSkippedBatch() const { return lastSkip_; }

 private:
  // Runs forward (and backward) on every replica over its share of the batch.
  // A batch with fewer sequences than replicas leaves the rest idle (active_[r] false).
  void runReplicas(const std::vector<Argument>& inArgs, PassType pass);
  // The batch's summed cost over the active replicas.
  double batchCost();
  // Names the first layer whose output is not finite, for the non-finite cost error.
  std::string firstNonFiniteOutput() const;
  void accumulate(EvalStats& stats, int64_t numSamples, double cost);
  // Adds the batch's cost and samples to the pass and period statistics, with its evaluators.
  void accumulateHere(int64_t numSamples, double cost);
  // Distributed: the same over all ranks: every rank's evaluator statistics of the batch merge
  // into the pass and period ones.
  void accumulateOverRanks(int64_t numSamples, double cost);
  EvalStats makeStats(bool withPrinters) const;
  void init(std::shared_ptr<GradientMachine> main);

  Json config_;
  TrainerOptions options_;
  int64_t batchSize_;
  std::unique_ptr<Replicas> replicas_;  // how the machines run and combine (CPU threads or GPUs)
  Machines machines_;  // [0] owns the parameter values
  std::vector<char> active_;  // which replicas ran the last batch
  ParameterUpdater updater_;
  std::unique_ptr<GradientSync> sync_;
  // accumulateHere, or accumulateOverRanks where distributed (chosen once)
  void (Trainer::*accumulateBatch_)(int64_t, double) = &Trainer::accumulateHere;
  EvalStats pass_, period_, test_;
  EvalStats batch_;  // distributed: this rank's statistics of one batch
  int passId_ = 0;
  int64_t batchesInPass_ = 0;  // trained (updated) ones
  int64_t skippedInPass_ = 0, skipped_ = 0, skipLimit_ = 0;
  std::string lastSkip_;
  std::vector<std::vector<float>> staticBackup_;  // static values before a batch that may be skipped
};

// Rows [begin, end) of sequences (or samples) of an argument, as views.
Argument sliceArgument(const Argument& a, size_t seqBegin, size_t seqEnd);

}  // namespace paddle
