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

// "multi_class_cross_entropy_with_selfnorm": inputs are unnormalised positive scores x;
// cost = -log x[label] + log S + alpha (log S)^2 with S = sum_j x_j.
class MultiClassCrossEntropyWithSelfNorm : public CostLayer {
 public:
  using CostLayer::CostLayer;
  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    alpha_ = static_cast<float>(config_.getDouble("softmax_selfnorm_alpha", 0.1));
  }

 protected:
  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const size_t w = in.value.width();
    const int* ids = labelIds(label, w);
    sums_.resize(rows_);
    for (size_t i = 0; i < rows_; ++i) {
      const float* x = in.value.row(i);
      double s = 0;
      for (size_t j = 0; j < w; ++j) s += x[j];
      PADDLE_ENFORCE(s > 0, DataError, "layer '", name_, "': sample ", i, " has a non-positive score sum");
      sums_[i] = s;
      double ls = std::log(s);
      cost[i] = static_cast<float>(-std::log(std::max<double>(x[ids[i]], FLT_MIN)) + ls + alpha_ * ls * ls);
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* scale) override {
    const size_t w = in.value.width();
    const int* ids = label.ids.data();
    for (size_t i = 0; i < rows_; ++i) {
      float* g = in.grad.row(i);
      const float common = static_cast<float>(scale[i] * (1 + 2 * alpha_ * std::log(sums_[i])) / sums_[i]);
      for (size_t j = 0; j < w; ++j) g[j] += common;
      g[ids[i]] -= scale[i] / std::max(in.value.row(i)[ids[i]], FLT_MIN);
    }
  }

 private:
  float alpha_ = 0.1f;
  std::vector<double> sums_;
};

// "multi_binary_label_cross_entropy" (0/1 labels) and "soft_binary_class_cross_entropy"
// (labels in [0, 1]): -sum_j [y_j log p_j + (1 - y_j) log(1 - p_j)]; the label is a dense
// row of the input's width.
class BinaryCrossEntropy : public CostLayer {
 public:
  using CostLayer::CostLayer;
  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    checkInputSize(1, inputs_[0]->size());
  }

 protected:
  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    PADDLE_ENFORCE(!label.value.empty(), DataError, "layer '", name_, "': label '", inputs_[1]->name(),
                   "' must be a dense vector of 0/1 (or soft) labels");
    const size_t w = in.value.width();
    for (size_t i = 0; i < rows_; ++i) {
      const float* p = in.value.row(i);
      const float* y = label.value.row(i);
      double c = 0;
      for (size_t j = 0; j < w; ++j) {
        PADDLE_ENFORCE(p[j] > 0 && p[j] < 1, DataError, "layer '", name_, "': sample ", i, " has probability ",
                       p[j], " outside (0, 1) (use a sigmoid activation)");
        c -= y[j] * std::log(p[j]) + (1 - y[j]) * std::log(1 - p[j]);
      }
      cost[i] = static_cast<float>(c);
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* scale) override {
    const size_t w = in.value.width();
    for (size_t i = 0; i < rows_; ++i) {
      const float* p = in.value.row(i);
      const float* y = label.value.row(i);
      float* g = in.grad.row(i);
      for (size_t j = 0; j < w; ++j) g[j] += scale[i] * (-y[j] / p[j] + (1 - y[j]) / (1 - p[j]));
    }
  }
};

// "huber": two-class Huber loss on a = x * y, y = 2 * label - 1 (label ids 0/1, input width 1):
// -4a if a < -1, (1 - a)^2 if a < 1, else 0.
class HuberTwoClass : public CostLayer {
 public:
  using CostLayer::CostLayer;
  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    checkInputSize(0, 1);
  }

 protected:
  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const int* ids = labelIds(label, 2);
    for (size_t i = 0; i < rows_; ++i) {
      float a = in.value.row(i)[0] * (2.0f * ids[i] - 1.0f);
      cost[i] = a < -1 ? -4 * a : (a < 1 ? (1 - a) * (1 - a) : 0.0f);
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* scale) override {
    const int* ids = label.ids.data();
    for (size_t i = 0; i < rows_; ++i) {
      float y = 2.0f * ids[i] - 1.0f, a = in.value.row(i)[0] * y;
      float d = a < -1 ? -4 * y : (a < 1 ? -2 * (1 - a) * y : 0.0f);
      in.grad.row(i)[0] += scale[i] * d;
    }
  }
};

// Costs whose inputs do not follow (prediction, label[, weight]).
class FreeCostLayer : public Layer {
 public:
  using Layer::Layer;
  bool isCost() const override { return true; }
  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    coeff_ = static_cast<float>(config_.getDouble("coeff", 1.0));
  }

 protected:
  float coeff_ = 1;
};

// "rank-cost": inputs [left, right, label(, weight)], all size 1; o = left - right,
// cost = log(1 + e^o) - label * o.
class RankCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;
  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    checkInputCount(3, 4);
    for (size_t i = 0; i < inputs_.size(); ++i) checkInputSize(i, 1);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    for (size_t i = 1; i < inputs_.size(); ++i) {
      PADDLE_ENFORCE(input(i).value.height() == rows, DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                     "' has ", input(i).value.height(), " rows, expected ", rows, " (labels are dense values)");
    }
    resetOutput(rows, 1);
    for (size_t r = 0; r < rows; ++r) {
      float o = input(0).value.row(r)[0] - input(1).value.row(r)[0];
      float c = (o > 0 ? o + std::log1p(std::exp(-o)) : std::log1p(std::exp(o))) - input(2).value.row(r)[0] * o;
      output_.value.row(r)[0] = inputs_.size() == 4 ? c * input(3).value.row(r)[0] : c;
    }
  }
  void backward() override {
    for (size_t r = 0; r < input(0).value.height(); ++r) {
      float o = input(0).value.row(r)[0] - input(1).value.row(r)[0];
      float d = coeff_ * (1.0f / (1.0f + std::exp(-o)) - input(2).value.row(r)[0]);
      if (inputs_.size() == 4) d *= input(3).value.row(r)[0];
      if (!input(0).grad.empty()) input(0).grad.row(r)[0] += d;
      if (!input(1).grad.empty()) input(1).grad.row(r)[0] -= d;
    }
  }
};

// "sum_cost": cost = sum of the input row.
class SumCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;
  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    checkInputCount(1, 1);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Matrix& x = input(0).value;
    resetOutput(x.height(), 1);
    for (size_t r = 0; r < x.height(); ++r) {
      double s = 0;
      for (size_t j = 0; j < x.width(); ++j) s += x.row(r)[j];
      output_.value.row(r)[0] = static_cast<float>(s);
    }
  }
  void backward() override {
    Matrix& g = input(0).grad;
    if (g.empty()) return;
    float* __restrict d = g.data();
    for (size_t i = 0, n = g.size(); i < n; ++i) d[i] += coeff_;
  }
};

REGISTER_LAYER("multi-class-cross-entropy", MultiClassCrossEntropy);
REGISTER_LAYER("square_error", SquareError);
REGISTER_LAYER("multi_class_cross_entropy_with_selfnorm", MultiClassCrossEntropyWithSelfNorm);
REGISTER_LAYER("multi_binary_label_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("soft_binary_class_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("huber", HuberTwoClass);
REGISTER_LAYER("rank-cost", RankCost);
REGISTER_LAYER("sum_cost", SumCost);

}  // namespace paddle
