// Inference-only fusion of a folded batch norm into the conv it alone reads (trainer/Predictor.cpp
// asks each batch norm that trainer/FoldBatchNorm.h folded): the conv finishes each sample's
// channels as it stores them, act((y - mean) + shift), the folded batch norm's whole work, and the
// batch norm's output is then the conv's output buffer itself: one pass less over the batch. A
// residual sum (addto) that alone reads such a batch norm moves into the conv the same way.
#pragma once

namespace paddle {

class Layer;
class Parameter;

// A producer that can finish its output per channel c: y = act((y - mean[c]) + shift[c]) (no shift:
// + 0), act relu or linear, in testing.
class TakesChannelEpilogue {
 public:
  virtual ~TakesChannelEpilogue() = default;
  // False (nothing changes) where this layer cannot.
  virtual bool takeChannelEpilogue(Parameter* mean, Parameter* shift, bool relu) = 0;
};

// A layer (a fused batch norm, or the conv under it) that can also finish a two-input addto after
// its epilogue: y = act(residual + y), act relu or linear. The caller guarantees that `residual`
// runs before this layer and that the addto is the only reader of this layer's output.
class TakesResidual {
 public:
  virtual ~TakesResidual() = default;
  virtual bool takeResidual(Layer* residual, bool relu) = 0;
};

// A two-input addto whose sum can move into input k's layer (TakesResidual).
class FusesResidualSum {
 public:
  virtual ~FusesResidualSum() = default;
  virtual bool fuseIntoInput(size_t k) = 0;
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
