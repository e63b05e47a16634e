// A feed-forward network built from a v1 ModelConfig: layers in config order
// (a layer's inputs always come first), parameters shared by name.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/DataLayer.h"
#include "layers/Layer.h"
#include "trainer/Recompute.h"

namespace paddle {

// Seconds spent in one part of the training step, and how many times it ran.
struct Timed {
  double seconds = 0;
  int64_t count = 0;
};

// Adds the time its scope lasts to *timed; a null `timed` (profiling off) reads no clock.
// sync: wait for queued device work first, so GPU kernels count where they were launched.
class ProfileScope {
 public:
  ProfileScope(Timed* timed, bool sync);
  ~ProfileScope();

 private:
  Timed* timed_;
  bool sync_;
  std::chrono::steady_clock::time_point start_;
};

// Opt-in timers of one machine (v1's ForwardTimer / BackwardTimer per layer, which v1 compiled
// in with WITH_TIMER; here switched on at run time), summed since profiling was switched on.
struct StepProfile {
  std::vector<Timed> forward, backward;  // parallel to GradientMachine::layers()
  Timed update;                          // the Trainer's parameter update
  Timed replicaSum;                      // the Trainer adding its replicas' gradients (replicas > 1)
};

class GradientMachine {
 public:
  // modelConfig: the JSON of a v1 ModelConfig. Throws ConfigError naming the layer.
  // randomize: initialise the parameters (the Trainer does it once itself).
  GradientMachine(const Json& modelConfig, bool useGpu, uint64_t seed = 1, bool randomize = true);

  // inArgs: one slot per input_layer_names entry, in that order.
  void forward(const std::vector<Argument>& inArgs, PassType pass);
  void backward();  // zeroes parameter gradients, then accumulates this batch's
  // The caller has just zeroed every parameter gradient (the Trainer after its update): the
  // next backward skips its own sweep over them.
  void gradientsAreZero() { gradientsZero_ = true; }
  // Called with a layer's index right after its backward (distributed training starts
  // reducing the gradients that are final by then: trainer/Collective).
  void setBackwardHook(std::function<void(size_t layer)> hook) { backwardHook_ = std::move(hook); }
  // Outputs of output_layer_names after forward().
  std::vector<Argument*> outputs();
  // Sum of the per-sample costs of the output cost layers (the batch's total cost).
  double totalCost();

  const std::vector<ParameterPtr>& parameters() const { return params_; }
  Parameter* parameter(const std::string& name) const;
  Layer* layer(const std::string& name) const;
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  const std::vector<DataLayer*>& dataLayers() const { return dataLayers_; }
  const std::vector<Layer*>& outputLayers() const { return outputLayers_; }
  const Json& config() const { return config_; }
  bool useGpu() const { return useGpu_; }
  // The arithmetic of the layers' matrix products (Layer::runForward). bf16 on a CPU without
  // AVX512_BF16, and fp16 on any CPU, run fp32: precision() says which runs.
  void setPrecision(math::Precision p);
  math::Precision precision() const { return precision_; }
  // fp16's loss scale: backward starts from the cost gradient times this (1: none).
  void setLossScale(float scale) { lossScale_ = scale; }
  std::mt19937& rng() { return rng_; }
  // Recompute (trainer/Recompute.h): "" (off), "auto" or "marked", plus checkpoint names to the
  // marked ones. The ModelConfig's `recompute` sets it at construction; ConfigError names a
  // checkpoint that is not a layer of the top level.
  void setRecompute(const std::string& mode, const std::vector<std::string>& checkpoints = {});
  // The plan's checkpoint layers, in order (empty when recompute is off).
  std::vector<std::string> recomputeCheckpoints() const;

  void randomizeParameters();
  // One v1 parameter file per parameter, named after it, in dir.
  void loadParameters(const std::string& dir);
  void saveParameters(const std::string& dir) const;
  // Data layers also get gradients (for gradient checks and input saliency).
  void setNeedInputGradient(bool need);
  // on: start (again) from zero; off: no timers, one branch per layer.
  void setProfiling(bool on);
  StepProfile* profile() { return profile_.get(); }  // null when off
  Timed* updateTimer() { return profile_ ? &profile_->update : nullptr; }
  Timed* replicaSumTimer() { return profile_ ? &profile_->replicaSum : nullptr; }

 private:
  // Where a layer is the only reader of its input and can set that input's whole gradient
  // (layers/GradientHandOver.h), the input stops clearing it.
  void handOverInputGradients();
  // Recompute: frees a segment's released layers; re-runs their forward (generator replayed).
  void releaseSegment(const RecomputeSegment& s);
  void recomputeSegment(const RecomputeSegment& s);

  Json config_;
  bool useGpu_;
  math::Precision precision_ = math::Precision::kFp32;
  float lossScale_ = 1;
  std::mt19937 rng_;
  std::vector<std::unique_ptr<Layer>> layers_;
  LayerMap layerMap_;
  std::vector<ParameterPtr> params_;
  ParameterMap paramMap_;
  std::vector<DataLayer*> dataLayers_;
  std::vector<Layer*> outputLayers_;
  PassType pass_ = PASS_TEST;
  std::unique_ptr<StepProfile> profile_;
  std::function<void(size_t)> backwardHook_;
  bool gradientsZero_ = false;
  std::unique_ptr<RecomputePlan> recompute_;
  std::map<size_t, std::mt19937> rngBefore_;  // the generator before each run of recomputed layers
  bool released_ = false;                      // the last forward released its segments
};

}  // namespace paddle
