// Learning-rate schedules and the parameter updater that applies v1's update
// rules (momentum, adagrad, adadelta, rmsprop, decayed_adagrad, adam, adamax),
// gradient clipping and L1/L2 decay, reading v1's OptimizationConfig.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/Json.h"
#include "engine/Parameter.h"

namespace paddle {

// v1 schedules by `learning_rate_schedule`: constant, poly, caffe_poly, exp,
// discexp, linear, manual, pass_manual (a = learning_rate_decay_a, b = ..._b).
class LearningRateSchedule {
 public:
  explicit LearningRateSchedule(const Json& optConfig);
  // numSamples: samples processed so far including the current batch.
  double rate(int64_t numSamples, int pass) const;

 private:
  std::string type_;
  double lr_, a_, b_;
  std::vector<std::pair<double, double>> segments_;  // manual: (bound, rate)
};

class ParameterUpdater {
 public:
  explicit ParameterUpdater(const Json& optConfig);

  const std::string& method() const { return method_; }
  void startPass(int pass) { pass_ = pass; }
  // Counts the batch's samples and computes this batch's learning rate.
  void startBatch(int64_t batchSize);
  // Clips the gradient, applies the rule (+ decay), and zeroes the gradient.
  void update(Parameter& p);
  // gradient_clipping_norm (opt-in, not v1): scales every gradient by
  // min(1, norm / ||all gradients||) before the updates. Returns the norm.
  double clipByGlobalNorm(const std::vector<ParameterPtr>& params);
  // fp16 (precision 'fp16'): dynamic loss scaling. lossScale() multiplies the cost gradient of
  // backward (1 in other precisions). takeScaledGradients: after the exchange, with `finite`
  // (whether every rank's gradients are) -- finite: the gradients are divided by the scale,
  // which doubles after loss_scale_growth_interval such steps in a row, and true is returned;
  // else the scale halves and false says to skip the step.
  bool lossScaling() const { return lossScaling_; }
  void setLossScaling(bool on) { lossScaling_ = on; }  // the trainer's machines run fp16
  float lossScale() const { return lossScaling_ ? static_cast<float>(lossScale_) : 1.0f; }
  bool gradientsFinite(const std::vector<ParameterPtr>& params) const;
  bool takeScaledGradients(const std::vector<ParameterPtr>& params, bool finite);
  // Advances the time step and the model-average window.
  void finishBatch();
  // Applies the decay that sparse_update rows still owe (v1 catchUpWith); the
  // trainer calls it before testing and saving.
  void catchUp();
  // v1: an unset max_average_window becomes the number of batches of a pass.
  void finishPass(int64_t batchesInPass);

  // ModelAverage (average_window > 0): apply() swaps the averaged weights in
  // (for testing and saving), restore() swaps the trained ones back.
  bool averaging() const { return averageWindow_ > 0; }
  void apply();
  void restore();

  // --show_parameter_stats_period: record |gradient| statistics at the next updates, as sums
  // and counts, so that the parts of a table sharded over ranks add up.
  struct AbsStats {
    double sum = 0, max = 0, count = 0;
    void add(const float* x, size_t n);
    double avg() const { return count > 0 ? sum / count : 0.0; }
  };
  struct GradStats {
    AbsStats grad;
    AbsStats value;  // only a sharded table's, over every rank (ShardedTables::stepEnd)
  };
  void setRecordGradStats(bool on) { recordGradStats_ = on; }
  bool recordsGradStats() const { return recordGradStats_; }
  // DGC's momentum correction (trainer/Collective) keeps the momentum locally: while it
  // runs, dense parameters take plain SGD steps on the exchanged sum (Fluid's DGCMomentum).
  void setMomentumOff(bool off) { momentumOff_ = off; }
  const std::unordered_map<std::string, GradStats>& gradStats() const { return gradStats_; }
  std::unordered_map<std::string, GradStats>& gradStats() { return gradStats_; }

  double learningRate() const { return lr_; }
  int64_t numSamplesProcessed() const { return numSamples_; }
  int64_t step() const { return step_; }

  // Counters as JSON (per-parameter buffers are saved by the caller), so
  // that a resumed run continues exactly where a saved one stopped.
  // Loading refuses malformed state (ConfigError): a missing, non-integer or negative
  // counter, or an update count of a name not in `parameterNames`.
  // `buffers`: the state buffers the caller saved, by parameter name, kept in the
  // state so that loading can tell a missing file from one never written.
  using BufferNames = std::map<std::string, std::vector<std::string>>;
  std::string stateJson(const BufferNames& buffers) const;
  void loadStateJson(const std::string& json, const std::set<std::string>& parameterNames);
  // After loadStateJson: the buffers listed in the state (null for state written
  // before the list existed: then whichever files are present are loaded).
  const BufferNames* loadedBuffers() const { return hasLoadedBuffers_ ? &loadedBuffers_ : nullptr; }
  // After loadStateJson: the loaded update count of p (0 if unknown).
  int64_t loadedUpdates(const Parameter& p) const {
    auto it = pendingCounts_.find(p.name());
    return it == pendingCounts_.end() ? 0 : it->second;
  }
  int64_t lossScaleSkips() const { return lossScaleSkips_; }
  // Buffers that carry optimizer state across batches for this method.
  std::vector<ParameterType> stateBuffers() const;

 private:
  void catchUpState(Parameter& p, const std::vector<int>* rows, int64_t now);
  // The per-element rate that p's lazy decay scales by (AdaGrad family), or null (rate 1).
  Parameter::RowRate decayRate(Parameter& p) const;
  // The updated rows' accumulators include update `now`.
  static void markStateCurrent(Parameter& p, const std::vector<int>* rows, int64_t now) {
    std::vector<int64_t>& clock = p.stateClock();
    if (rows) {
      for (int r : *rows) clock[r] = now;
    } else {
      std::fill(clock.begin(), clock.end(), now);
    }
  }

  std::string method_;
  LearningRateSchedule schedule_;
  double baseLr_, rho_, eps_, beta1_, beta2_, adamEps_, globalClip_, clipNorm_;
  double lr_ = 0;
  int64_t numSamples_ = 0;
  int64_t step_ = 1;  // v1's Adam/Adamax time step starts at 1
  int pass_ = 0;
  std::vector<Parameter*> params_;  // in first-update order
  std::unordered_map<const Parameter*, int64_t> updateCount_;
  std::unordered_map<std::string, int64_t> pendingCounts_;  // loaded, by parameter name
  BufferNames loadedBuffers_;
  bool hasLoadedBuffers_ = false;
  // model average (v1 AverageOptimizer)
  double averageWindow_ = 0;
  int64_t maxAverageWindow_;
  bool maxWindowSet_;
  int64_t numUpdates_ = 0, numAccumulates_ = 0, oldNumAccumulates_ = 0;
  bool applied_ = false;
  bool recordGradStats_ = false;
  bool momentumOff_ = false;
  std::unordered_map<std::string, GradStats> gradStats_;
  // fp16's dynamic loss scale
  bool lossScaling_ = false;
  double lossScale_ = 1;
  int64_t lossScaleGrowthInterval_ = 1000, cleanSteps_ = 0, lossScaleSkips_ = 0;
};

}  // namespace paddle
