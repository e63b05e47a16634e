// Deployment: a merged model (the ModelConfig and every parameter in one file)
// and a predictor that serves it from many threads at once.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/math/GemmPacked.h"
#include "trainer/GradientMachine.h"

namespace paddle {

// The merged-model file: "PDMERGED", uint32 version 2, uint64 length + the ModelConfig as
// protobuf JSON, its uint32 CRC-32C, uint32 parameter count, then per parameter a uint32
// length + its name, one v1 parameter record (header + float32 values) and the CRC-32C of the
// name and record; optionally front-end data after them (bytes, uint64 length, "PDEXTRA2" or
// "PDEXTRA1"), which the engine skips. Version 1 files (no checksums) still load.
void saveMergedModel(const GradientMachine& gm, const std::string& path);
// The ModelConfig of a merged model, and a machine over it with its parameters.
std::shared_ptr<GradientMachine> loadMergedModel(const std::string& path, bool useGpu);

// Forward passes on a merged model, safe to call from several threads at once:
// each call runs on a machine of its own (kept for reuse) whose layers read the
// one copy of the parameters. On the CPU, products by a weight use its packed copy
// (math::PackedWeights; AVX-512): outputs may differ from a training machine's
// forward by fp32 rounding. Batch norms that only normalise a conv or fc layer's output are
// folded into its weights (trainer/FoldBatchNorm.h; PADDLE_FOLD_BN=0 keeps them), in the
// Predictor's own copies: model() keeps the loaded values; a conv's folded batch norm then runs in
// the conv's store (layers/InferenceFusion.h; PADDLE_FUSE_BN=0 keeps it a pass of its own).
class Predictor {
 public:
  Predictor(const std::string& mergedModelPath, bool useGpu);
  // Outputs of the model's output layers; they belong to the caller.
  std::vector<Argument> forward(const std::vector<Argument>& inArgs);
  const GradientMachine& model() const { return *main_; }

 private:
  std::unique_ptr<GradientMachine> acquire();
  // forward of a batch of dense rows as slices of sliceRows_ samples, outputs gathered in `out`
  void forwardInSlices(GradientMachine& m, const std::vector<Argument>& inArgs, size_t rows,
                       std::vector<Argument>* out);
  std::shared_ptr<GradientMachine> main_;
  std::vector<Matrix> values_;  // what the machines read, per parameter: main_'s or a folded copy
  std::vector<std::string> foldedBatchNorms_;
  bool fuseBatchNorms_ = false;  // batchNormFusionEnabled() when created
  std::vector<std::pair<std::string, size_t>> residualSums_;  // addto layers their input k's conv finishes
  math::PackedWeights packed_;  // main_'s weights, packed on first use
  size_t sliceRows_ = 0;  // packed conv nets: a batch runs in slices of this many samples (0: whole)
  std::mutex mutex_;
  std::vector<std::unique_ptr<GradientMachine>> idle_;
};

}  // namespace paddle
