// Shared by the cost layer files (CostLayers.cpp: costs of a prediction and a label;
// StructuredCostLayers.cpp: hsigmoid, lambda_cost, nce): the cost base classes and the
// small device-generic helpers their kernels use.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/Layer.h"

namespace paddle {

// The first `rows` label ids as kernels read them (kernelView); an id outside
// [0, numClasses) is a DataError "<who>: sample i has label v, outside [0, n)".
inline const int* checkedLabels(const IVector& ids, size_t rows, size_t numClasses, bool gpu, IVector& scratch,
                         RowFlag& flag, const std::string& who) {
  const int* v = kernelView(ids, scratch, gpu);
  int* bad = flag.reset(gpu);
  const int n = static_cast<int>(numClasses);
  forEach(gpu, rows, [=] PD_HD(size_t i) {
    if (v[i] < 0 || v[i] >= n) flagRow(bad, static_cast<int>(i));
  });
  const int r = flag.first();
  if (r >= 0) {
    std::vector<int> host(ids.size());
    ids.copyToHost(host.data());
    throw DataError(str(who, ": sample ", r, " has label ", host[r], ", outside [0, ", numClasses, ")"));
  }
  return v;
}

// coeff times sample i's weight (weight null: no weight input). Every cost's backward scales
// its gradient by coeff times NetworkPrecisionScope::lossScale() (fp16's loss scale, else 1).
PD_HD inline float sampleScale(float coeff, const float* weight, size_t i) {
  return weight ? coeff * weight[i] : coeff;
}

// A saturated sigmoid gives exactly 0 or 1 in float: keep the logs finite.
PD_HD inline float clampProb(float p) { return std::min(std::max(p, 1e-7f), 1.0f - 1e-7f); }

// 1-based position of the highest set bit (0 for 0).
PD_HD inline int findLastSet(size_t x) {
  int n = 0;
  while (x) ++n, x >>= 1;
  return n;
}

PD_HD inline float dot(const float* __restrict a, const float* __restrict b, size_t n) {
  float s = 0;
  for (size_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// y[k] += g * x[k] for k < n, atomically on the GPU (several indices add into one row).
PD_HD inline void addScaled(float g, const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t k = 0; k < n; ++k) atomicAddF(y + k, g * x[k]);
}

class CostLayer : public Layer {
 public:
  using Layer::Layer;
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 3);
    coeff_ = static_cast<float>(config_.getDouble("coeff"));
    if (inputs_.size() == 3) checkInputSize(2, 1);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    rows_ = input(0).batchSize();
    PADDLE_ENFORCE(input(1).batchSize() == rows_, DataError, "label '", inputs_[1]->name(),
                   "' has ", input(1).batchSize(), " rows but the prediction has ", rows_);
    resetOutput(rows_, 1);
    computeCost(input(0), input(1), output_.value.data());
    if (hasWeight()) math::dotMul(output_.value, input(2).value);
  }

  void backward() override {
    Argument& in = input(0);
    if (in.grad.empty()) return;
    addGradient(in, input(1), hasWeight() ? input(2).value.data() : nullptr);
  }

  // Public because they hold kernels (an nvcc rule for PD_HD lambdas).
  // cost[i] for every row i
  virtual void computeCost(const Argument& in, const Argument& label, float* cost) = 0;
  // in.grad[i, :] += sampleScale(coeff, weight, i) * d cost[i] / d in[i, :]
  virtual void addGradient(Argument& in, const Argument& label, const float* weight) = 0;

 protected:
  bool hasWeight() const { return inputs_.size() == 3; }

  // The label ids for kernels, checked to lie in [0, numClasses).
  const int* labelIds(const Argument& label, size_t numClasses) {
    PADDLE_ENFORCE(!label.ids.empty(), DataError, "layer '", name_, "': label '", inputs_[1]->name(),
                   "' must be integer ids (integer_value)");
    return checkedLabels(label.ids, rows_, numClasses, useGpu_, idScratch_, badLabel_, str("layer '", name_, "'"));
  }
  // The same ids again in backward (checked in forward).
  const int* labelView(const Argument& label) { return kernelView(label.ids, idScratch_, useGpu_); }

  float coeff_ = 1;
  size_t rows_ = 0;
  IVector idScratch_;
  RowFlag badLabel_;
};

// Costs whose inputs do not follow (prediction, label[, weight]).
class FreeCostLayer : public Layer {
 public:
  using Layer::Layer;
  bool isCost() const override { return true; }
  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    coeff_ = static_cast<float>(config_.getDouble("coeff"));
  }

 protected:
  float coeff_ = 1;
};

}  // namespace paddle
