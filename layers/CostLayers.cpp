// Cost layers: one cost per sample in a [rows, 1] output. Their backward seeds
// the network's gradient with coeff * d(cost)/d(input): gradients are summed
// over the batch (v1), never averaged. An optional last input of size 1
// weights each sample's cost. CPU and GPU alike (forEach loops, Kernel.h);
// label ids may sit on either side (kernelView). The structured costs (hsigmoid,
// lambda_cost, nce) are in StructuredCostLayers.cpp.
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "layers/CostLayers.h"

namespace paddle {

// "multi-class-cross-entropy": -log p[label]; input rows are probabilities.
class MultiClassCrossEntropy : public CostLayer {
 public:
  using CostLayer::CostLayer;

  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const size_t w = in.value.width();
    const int* ids = labelIds(label, w);
    const float* x = in.value.data();
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) { cost[i] = -std::log(std::max(x[i * w + ids[i]], FLT_MIN)); });
  }
  void addGradient(Argument& in, const Argument& label, const float* weight) override {
    const size_t w = in.value.width();
    const int* ids = labelView(label);
    const float* x = in.value.data();
    float* g = in.grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      const size_t at = i * w + ids[i];
      g[at] -= sampleScale(coeff, weight, i) / std::max(x[at], FLT_MIN);
    });
  }
};

// Costs of a prediction against a dense label of its width: sum_j F::cost(x_j - y_j), with
// gradient F::kScale * F::grad(x - y).
template <typename F>
class DenseLabelCost : public CostLayer {
 public:
  using CostLayer::CostLayer;

  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    checkInputSize(1, inputs_[0]->size());
  }

  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    PADDLE_ENFORCE(!label.value.empty(), DataError, "layer '", name_, "': label '",
                   inputs_[1]->name(), "' must be a dense vector");
    const size_t w = in.value.width();
    const float* x = in.value.data();
    const float* y = label.value.data();
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      float s = 0;
      for (size_t j = i * w; j < (i + 1) * w; ++j) s += F::cost(x[j] - y[j]);
      cost[i] = s;
    });
  }
  void addGradient(Argument& in, const Argument& label, const float* weight) override {
    const size_t w = in.value.width();
    const float* x = in.value.data();
    const float* y = label.value.data();
    float* g = in.grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach2(useGpu_, rows_, w, [=] PD_HD(size_t i, size_t j) {
      g[i * w + j] += F::kScale * sampleScale(coeff, weight, i) * F::grad(x[i * w + j] - y[i * w + j]);
    });
  }
};

// "square_error": d^2, gradient 2 d.
struct SquaredDifference {
  static constexpr float kScale = 2.0f;
  PD_HD static float cost(float d) { return d * d; }
  PD_HD static float grad(float d) { return d; }
};

// "smooth_l1": d^2 / 2 where |d| < 1, else |d| - 1/2; gradient d clipped to [-1, 1].
struct SmoothL1Difference {
  static constexpr float kScale = 1.0f;
  PD_HD static float cost(float d) {
    const float a = fabsf(d);
    return a < 1.0f ? 0.5f * a * a : a - 0.5f;
  }
  PD_HD static float grad(float d) { return fminf(fmaxf(d, -1.0f), 1.0f); }
};

// "multi_class_cross_entropy_with_selfnorm": inputs are unnormalised positive scores x;
// cost = -log x[label] + log S + alpha (log S)^2 with S = sum_j x_j.
class MultiClassCrossEntropyWithSelfNorm : public CostLayer {
 public:
  using CostLayer::CostLayer;
  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    alpha_ = static_cast<float>(config_.getDouble("softmax_selfnorm_alpha"));
  }

  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const size_t w = in.value.width();
    const int* ids = labelIds(label, w);
    const float* x = in.value.data();
    const float alpha = alpha_;
    normGrad_.setDevice(useGpu_);
    normGrad_.resize(1, rows_);
    double* normGrad = normGrad_.data();
    int* bad = badSum_.reset(useGpu_);
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      const float* xi = x + i * w;
      double s = 0;
      for (size_t j = 0; j < w; ++j) s += xi[j];
      if (!(s > 0)) flagRow(bad, static_cast<int>(i));
      const double ls = std::log(s);
      normGrad[i] = (1 + 2 * alpha * ls) / s;
      cost[i] = static_cast<float>(-std::log(std::max<double>(xi[ids[i]], FLT_MIN)) + ls + alpha * ls * ls);
    });
    const int r = badSum_.first();
    PADDLE_ENFORCE(r < 0, DataError, "layer '", name_, "': sample ", r, " has a non-positive score sum");
  }
  void addGradient(Argument& in, const Argument& label, const float* weight) override {
    const size_t w = in.value.width();
    const int* ids = labelView(label);
    const float* x = in.value.data();
    const double* normGrad = normGrad_.data();
    float* g = in.grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach2(useGpu_, rows_, w, [=] PD_HD(size_t i, size_t j) {
      const float scale = sampleScale(coeff, weight, i);
      float v = g[i * w + j] + static_cast<float>(scale * normGrad[i]);
      if (static_cast<int>(j) == ids[i]) v -= scale / std::max(x[i * w + j], FLT_MIN);
      g[i * w + j] = v;
    });
  }

 private:
  float alpha_ = 0.1f;
  DenseBuffer<double> normGrad_;  // per row: d(log S + alpha (log S)^2) / dS
  RowFlag badSum_;
};

// "multi_binary_label_cross_entropy" (0/1 labels) and "soft_binary_class_cross_entropy"
// (labels in [0, 1]): -sum_j [y_j log p_j + (1 - y_j) log(1 - p_j)]; the label is a dense
// row of the input's width. multi_binary_label_cross_entropy also takes v1's usual
// multi-label inputs: a sparse_binary_vector (the labels that are 1; a sparse_vector's
// values are the y_j) or an integer_value (one label per sample, a one-hot row).
class BinaryCrossEntropy : public CostLayer {
 public:
  using CostLayer::CostLayer;
  void init(LayerContext& ctx) override {
    CostLayer::init(ctx);
    checkInputSize(1, inputs_[0]->size());
    labelsMayBeSparse_ = type_ == "multi_binary_label_cross_entropy";
  }

  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const size_t w = in.value.width();
    const float* p = in.value.data();
    const float* y = labelRows(label, w).data();
    int* bad = badProb_.reset(useGpu_);
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      double c = 0;
      for (size_t j = i * w; j < (i + 1) * w; ++j) {
        if (!(p[j] >= 0 && p[j] <= 1)) flagRow(bad, static_cast<int>(i));
        const double q = clampProb(p[j]);
        c -= y[j] * std::log(q) + (1 - y[j]) * std::log(1 - q);
      }
      cost[i] = static_cast<float>(c);
    });
    const int r = badProb_.first();
    if (r >= 0) {
      const std::vector<float> row = hostRow(in.value, r);
      const float v = *std::find_if(row.begin(), row.end(), [](float x) { return !(x >= 0 && x <= 1); });
      throw DataError(str("layer '", name_, "': sample ", r, " has probability ", v,
                          " outside [0, 1] (use a sigmoid activation)"));
    }
  }
  void addGradient(Argument& in, const Argument& label, const float* weight) override {
    const size_t w = in.value.width();
    const float* p = in.value.data();
    const float* y = (label.value.empty() ? denseLabel_ : label.value).data();  // forward made it
    float* g = in.grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach2(useGpu_, rows_, w, [=] PD_HD(size_t i, size_t j) {
      const size_t at = i * w + j;
      const float q = clampProb(p[at]);
      g[at] += sampleScale(coeff, weight, i) * (-y[at] / q + (1 - y[at]) / (1 - q));
    });
  }

 private:
  // The label as dense [rows, w] rows: the dense value itself, or (multi_binary) the rows
  // written from sparse columns or from ids, on the host and copied to the layer's device.
  const Matrix& labelRows(const Argument& label, size_t w) {
    if (!label.value.empty()) return label.value;
    const std::string who = str("layer '", name_, "': label '", inputs_[1]->name(), "'");
    PADDLE_ENFORCE(labelsMayBeSparse_, DataError, who, " must be a dense vector of labels in [0, 1]");
    std::vector<float> rows(rows_ * w, 0.0f);
    if (!label.sparse.empty()) {
      const SparseMatrix& s = label.sparse;
      const int* starts = s.rowStarts.data();
      for (size_t r = 0; r < rows_; ++r) {
        for (int k = starts[r]; k < starts[r + 1]; ++k) {
          const int c = s.cols.data()[k];
          PADDLE_ENFORCE(c >= 0 && static_cast<size_t>(c) < w, DataError, who, ": sample ", r, " has label ", c,
                         ", outside [0, ", w, ")");
          rows[r * w + c] = s.binary() ? 1.0f : s.values.data()[k];
        }
      }
    } else {
      PADDLE_ENFORCE(!label.ids.empty(), DataError, who,
                     " must be a dense vector, a sparse_binary_vector or an integer_value");
      std::vector<int> ids(label.ids.size());
      label.ids.copyToHost(ids.data());
      for (size_t r = 0; r < rows_; ++r) {
        PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < w, DataError, who, ": sample ", r,
                       " has label ", ids[r], ", outside [0, ", w, ")");
        rows[r * w + ids[r]] = 1.0f;
      }
    }
    denseLabel_.setDevice(useGpu_);
    denseLabel_.resize(rows_, w);
    denseLabel_.copyFromHost(rows.data(), rows_, w);
    return denseLabel_;
  }

  bool labelsMayBeSparse_ = false;
  Matrix denseLabel_;
  RowFlag badProb_;
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

  void computeCost(const Argument& in, const Argument& label, float* cost) override {
    const int* ids = labelIds(label, 2);
    const float* x = in.value.data();
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      const float a = x[i] * (2.0f * ids[i] - 1.0f);
      cost[i] = a < -1 ? -4 * a : (a < 1 ? (1 - a) * (1 - a) : 0.0f);
    });
  }
  void addGradient(Argument& in, const Argument& label, const float* weight) override {
    const int* ids = labelView(label);
    const float* x = in.value.data();
    float* g = in.grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, rows_, [=] PD_HD(size_t i) {
      const float y = 2.0f * ids[i] - 1.0f, a = x[i] * y;
      const float d = a < -1 ? -4 * y : (a < 1 ? -2 * (1 - a) * y : 0.0f);
      g[i] += sampleScale(coeff, weight, i) * d;
    });
  }
};

// "rank-cost": inputs [left, right, label(, weight)], all size 1; o = left - right,
// cost = log(1 + e^o) - label * o. The label is a dense value or, as v1 fell back to,
// integer ids (their values are the labels; the data layer's size is then free).
class RankCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;
  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    checkInputCount(3, 4);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (i != 2) checkInputSize(i, 1);
    }
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    for (size_t i = 1; i < inputs_.size(); ++i) {
      const Argument& a = input(i);
      const bool ids = i == 2 && a.value.empty() && !a.ids.empty();
      const size_t got = ids ? a.ids.size() : a.value.height();
      PADDLE_ENFORCE(got == rows, DataError, "layer '", name_, "': input '", inputs_[i]->name(), "' has ", got,
                     " rows, expected ", rows, i == 2 ? " (labels are dense values or integer ids)" : "");
      PADDLE_ENFORCE(ids || a.value.width() == 1, DataError, "layer '", name_, "': input '", inputs_[i]->name(),
                     "' has width ", a.value.width(), ", expected 1");
    }
    resetOutput(rows, 1);
    const float* left = input(0).value.data();
    const float* right = input(1).value.data();
    const float* label = labelValues(rows);
    const float* weight = inputs_.size() == 4 ? input(3).value.data() : nullptr;
    float* out = output_.value.data();
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      const float o = left[r] - right[r];
      const float c = (o > 0 ? o + std::log1p(std::exp(-o)) : std::log1p(std::exp(o))) - label[r] * o;
      out[r] = weight ? c * weight[r] : c;
    });
  }
  void backward() override {
    const float* left = input(0).value.data();
    const float* right = input(1).value.data();
    const float* label = input(2).value.empty() ? idLabels_.data() : input(2).value.data();
    const float* weight = inputs_.size() == 4 ? input(3).value.data() : nullptr;
    float* gLeft = input(0).grad.empty() ? nullptr : input(0).grad.data();
    float* gRight = input(1).grad.empty() ? nullptr : input(1).grad.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, input(0).value.height(), [=] PD_HD(size_t r) {
      const float o = left[r] - right[r];
      float d = coeff * (1.0f / (1.0f + std::exp(-o)) - label[r]);
      if (weight) d *= weight[r];
      if (gLeft) gLeft[r] += d;
      if (gRight) gRight[r] -= d;
    });
  }

 private:
  // The labels as floats: the dense value, or the ids converted (v1: labelBuf_->copyFrom(ids)).
  const float* labelValues(size_t rows) {
    const Argument& label = input(2);
    if (!label.value.empty()) return label.value.data();
    std::vector<int> ids(rows);
    label.ids.copyToHost(ids.data());
    std::vector<float> values(ids.begin(), ids.end());
    idLabels_.setDevice(useGpu_);
    idLabels_.resize(rows, 1);
    idLabels_.copyFromHost(values.data(), rows, 1);
    return idLabels_.data();
  }

  Matrix idLabels_;
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
    const size_t w = x.width();
    const float* xs = x.data();
    float* out = output_.value.data();
    forEach(useGpu_, x.height(), [=] PD_HD(size_t r) {
      double s = 0;
      for (size_t j = r * w; j < (r + 1) * w; ++j) s += xs[j];
      out[r] = static_cast<float>(s);
    });
  }
  void backward() override {
    Matrix& g = input(0).grad;
    if (g.empty()) return;
    float* d = g.data();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, g.size(), [=] PD_HD(size_t i) { d[i] += coeff; });
  }
};

REGISTER_LAYER("multi-class-cross-entropy", MultiClassCrossEntropy);
REGISTER_LAYER("square_error", DenseLabelCost<SquaredDifference>);
REGISTER_LAYER("smooth_l1", DenseLabelCost<SmoothL1Difference>);
REGISTER_LAYER("multi_class_cross_entropy_with_selfnorm", MultiClassCrossEntropyWithSelfNorm);
REGISTER_LAYER("multi_binary_label_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("soft_binary_class_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("huber", HuberTwoClass);
REGISTER_LAYER("rank-cost", RankCost);
REGISTER_LAYER("sum_cost", SumCost);

}  // namespace paddle
