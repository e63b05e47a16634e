// Cost layers: one cost per sample in a [rows, 1] output. Their backward seeds
// the network's gradient with coeff * d(cost)/d(input): gradients are summed
// over the batch (v1), never averaged. An optional last input of size 1
// weights each sample's cost.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "Errors.h"
#include "Layer.h"

namespace paddle {

class CostLayer : public Layer {
 public:
  using Layer::Layer;
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 3);
    coeff_ = static_cast<float>(config_.getDouble("coeff", 1.0));
    if (inputs_.size() == 3) checkInputSize(2, 1);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    rows_ = input(0).batchSize();
    PADDLE_ENFORCE(!useGpu_, UnsupportedError, "cost layer '", name_, "' (", type_,
                   ") has no GPU kernel yet");
    PADDLE_ENFORCE(input(1).batchSize() == rows_, DataError, "label '", inputs_[1]->name(),
                   "' has ", input(1).batchSize(), " rows but the prediction has ", rows_);
    resetOutput(rows_, 1);
    computeCost(input(0), input(1), output_.value.data());
    if (hasWeight()) {
      const float* w = input(2).value.data();
      for (size_t i = 0; i < rows_; ++i) output_.value.data()[i] *= w[i];
    }
  }

  void backward() override {
    Argument& in = input(0);
    if (in.grad.empty()) return;
    scale_.assign(rows_, coeff_);
    if (hasWeight()) {
      const float* w = input(2).value.data();
      for (size_t i = 0; i < rows_; ++i) scale_[i] *= w[i];
    }
    addGradient(in, input(1), scale_.data());
  }

 protected:
  bool hasWeight() const { return inputs_.size() == 3; }
  // cost[i] for every row i
  virtual void computeCost(const Argument& in, const Argument& label, float* cost) = 0;
  // in.grad[i, :] += scale[i] * d cost[i] / d in[i, :]
  virtual void addGradient(Argument& in, const Argument& label, const float* scale) = 0;

  const int* labelIds(const Argument& label, size_t numClasses) {
    PADDLE_ENFORCE(!label.ids.empty(), DataError, "layer '", name_, "': label '", inputs_[1]->name(),
                   "' must be integer ids (integer_value)");
    const int* ids = label.ids.data();
    for (size_t i = 0; i < rows_; ++i) {
      PADDLE_ENFORCE(ids[i] >= 0 && static_cast<size_t>(ids[i]) < numClasses, DataError, "layer '",
                     name_, "': sample ", i, " has label ", ids[i], ", outside [0, ", numClasses, ")");
    }
    return ids;
  }

  float coeff_ = 1;
  size_t rows_ = 0;
  std::vector<float> scale_;
};

// "multi-class-cross-entropy": -log p[label]; input rows are probabilities.
class MultiClassCrossEntropy : public CostLayer {
 public:
  using CostLayer::CostLayer;

 protected:
  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const size_t w = in.value.width();
    const int* ids = labelIds(label, w);
    for (size_t i = 0; i < rows_; ++i) {
      cost[i] = -std::log(std::max(in.value.row(i)[ids[i]], FLT_MIN));
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* scale) override {
    const int* ids = label.ids.data();
    for (size_t i = 0; i < rows_; ++i) {
      float p = std::max(in.value.row(i)[ids[i]], FLT_MIN);
      in.grad.row(i)[ids[i]] -= scale[i] / p;
    }
  }
};

// "square_error": sum_j (x_j - y_j)^2, gradient 2 (x - y).
class SquareError : public CostLayer {
 public:
  using CostLayer::CostLayer;

  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    checkInputSize(1, inputs_[0]->size());
  }

 protected:
  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    PADDLE_ENFORCE(!label.value.empty(), DataError, "layer '", name_, "': label '",
                   inputs_[1]->name(), "' must be a dense vector");
    const size_t w = in.value.width();
    for (size_t i = 0; i < rows_; ++i) {
      const float* x = in.value.row(i);
      const float* y = label.value.row(i);
      float s = 0;
      for (size_t j = 0; j < w; ++j) s += (x[j] - y[j]) * (x[j] - y[j]);
      cost[i] = s;
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* scale) override {
    const size_t w = in.value.width();
    for (size_t i = 0; i < rows_; ++i) {
      const float* x = in.value.row(i);
      const float* y = label.value.row(i);
      float* g = in.grad.row(i);
      for (size_t j = 0; j < w; ++j) g[j] += 2.0f * scale[i] * (x[j] - y[j]);
    }
  }
};

REGISTER_LAYER("multi-class-cross-entropy", MultiClassCrossEntropy);
REGISTER_LAYER("square_error", SquareError);

}  // namespace paddle
