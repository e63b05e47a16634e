// Inference-only fusion of a folded batch norm into the conv it alone reads (trainer/Predictor.cpp
// asks each batch norm that trainer/FoldBatchNorm.h folded): the conv finishes each sample's
// channels as it stores them, act((y - mean) + shift), the folded batch norm's whole work, and the
// batch norm's output is then the conv's output buffer itself: one pass less over the batch.
#pragma once

namespace paddle {

class Parameter;

// A producer that can finish its output per channel c: y = act((y - mean[c]) + shift[c]) (no shift:
// + 0), act relu or linear, in testing.
class TakesChannelEpilogue {
 public:
  virtual ~TakesChannelEpilogue() = default;
  // False (nothing changes) where this layer cannot.
  virtual bool takeChannelEpilogue(Parameter* mean, Parameter* shift, bool relu) = 0;
};

// A layer whose testing forward can move into its one input's layer.
class FusesIntoInput {
 public:
  virtual ~FusesIntoInput() = default;
  // Only for a batch norm folded into a producer that nothing else reads (its scale and 1/std
  // exactly 1). False (nothing changes) where the input's layer cannot take the work.
  virtual bool fuseIntoInput() = 0;
};

}  // namespace paddle
