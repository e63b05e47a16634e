// Recomputation (Chen et al. 2016, "Training deep nets with sublinear memory cost"; Fluid's
// RecomputeOptimizer): checkpoint layers cut the network into segments; a training forward
// keeps the outputs of the checkpoints (and of every layer read outside its own segment) and
// releases the rest of each segment as soon as the segment is done; backward re-runs a
// segment's released layers, with the random generator replayed, right before the segment's
// backward. The gradients are the stored run's, bit for bit.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "layers/Layer.h"

namespace paddle {

struct RecomputeSegment {
  size_t begin = 0, end = 0;       // layers [begin, end) of the machine
  std::vector<size_t> recomputed;  // released after the forward, re-run in backward, in order
};

class RecomputePlan {
 public:
  // mode: "auto" (a checkpoint about every sqrt(n) layers, where nothing before it is read
  // after it, plus the marked layers) or "marked" (LayerConfig.recompute_checkpoint only).
  // extra: more checkpoint names. ConfigError names a checkpoint that is not a layer of the
  // network's top level.
  RecomputePlan(const std::string& mode, const std::vector<std::string>& extra, const Json& model,
                const std::vector<std::unique_ptr<Layer>>& layers);

  const std::vector<RecomputeSegment>& segments() const { return segments_; }
  std::vector<std::string> checkpoints() const { return checkpointNames_; }
  // Whether layer i is released by the forward (and re-run by backward).
  bool recomputed(size_t i) const { return recomputed_[i]; }
  // Whether layer i starts a run of recomputed layers: the generator is saved before it.
  bool startsRun(size_t i) const { return recomputed_[i] && (i == 0 || !recomputed_[i - 1] || segmentStart_[i]); }

 private:
  std::vector<RecomputeSegment> segments_;
  std::vector<bool> recomputed_, segmentStart_;
  std::vector<std::string> checkpointNames_;
};

}  // namespace paddle
