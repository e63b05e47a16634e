// Cost layers: one cost per sample in a [rows, 1] output. Their backward seeds
// the network's gradient with coeff * d(cost)/d(input): gradients are summed
// over the batch (v1), never averaged. An optional last input of size 1
// weights each sample's cost.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

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
        PADDLE_ENFORCE(p[j] >= 0 && p[j] <= 1, DataError, "layer '", name_, "': sample ", i, " has probability ",
                       p[j], " outside [0, 1] (use a sigmoid activation)");
        const double q = clampProb(p[j]);
        c -= y[j] * std::log(q) + (1 - y[j]) * std::log(1 - q);
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
      for (size_t j = 0; j < w; ++j) {
        const float q = clampProb(p[j]);
        g[j] += scale[i] * (-y[j] / q + (1 - y[j]) / (1 - q));
      }
    }
  }

 private:
  // A saturated sigmoid gives exactly 0 or 1 in float: keep the logs finite.
  static float clampProb(float p) { return std::min(std::max(p, 1e-7f), 1.0f - 1e-7f); }
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

// "hsigmoid": hierarchical sigmoid over a complete binary tree of num_classes leaves (v1).
// Class c's code is b = c + num_classes; its path has len(b) = floor(log2 b) nodes, node j
// (j < len) being inner node (b >> (j+1)) - 1 with target bit (b >> j) & 1. Inputs: features
// x_1..x_k (weight i: [num_classes - 1, size_i], row = node), then the label ids; bias: one
// per node. pre[j] = clip(b[node] + sum_i W_i[node] . x_i, -40, 40) for j < len, 0 for
// len <= j < codeLength = floor(log2(num_classes - 1)) + 1, and
//   cost = sum_{j < codeLength} softrelu(pre[j]) - sum_{j < len, bit j set} pre[j]
// (as in v1, the unused positions add log 2 each, a constant).
class HierarchicalSigmoid : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    PADDLE_ENFORCE(inputs_.size() >= 2, ConfigError, "hsigmoid layer '", name_,
                   "' needs at least one feature input and the label input, got ", inputs_.size(), " inputs");
    const int64_t n = config_.getInt("num_classes", 0);
    PADDLE_ENFORCE(n >= 2, ConfigError, "hsigmoid layer '", name_, "': num_classes must be >= 2, got ", n);
    numClasses_ = static_cast<size_t>(n);
    codeLength_ = static_cast<size_t>(findLastSet(numClasses_ - 1));
    const size_t nodes = numClasses_ - 1;
    for (size_t i = 0; i + 1 < inputs_.size(); ++i) {
      Parameter* w = weight(i);
      PADDLE_ENFORCE(w && w->size() == nodes * inputs_[i]->size(), ConfigError, "hsigmoid layer '", name_,
                     "': input ", i, " ('", inputs_[i]->name(), "') needs a weight of ", nodes, "x",
                     inputs_[i]->size(), " values",
                     (w ? ", '" + w->name() + "' has " + std::to_string(w->size()) : std::string()));
    }
    PADDLE_ENFORCE(!weight(inputs_.size() - 1), ConfigError, "hsigmoid layer '", name_,
                   "': the last input (the label) takes no parameter");
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == nodes, ConfigError, "hsigmoid layer '", name_, "': bias '", bias_->name(),
                     "' has ", bias_->size(), " values, expected num_classes - 1 = ", nodes);
    }
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    const size_t nin = inputs_.size() - 1;
    for (size_t i = 0; i < nin; ++i) {
      PADDLE_ENFORCE(input(i).value.height() == rows && input(i).value.width() == inputs_[i]->size(), DataError,
                     "hsigmoid layer '", name_, "': input '", inputs_[i]->name(), "' is ", shapeStr(input(i).value),
                     ", expected ", rows, "x", inputs_[i]->size());
    }
    const Argument& lab = input(nin);
    PADDLE_ENFORCE(lab.ids.size() == rows, DataError, "hsigmoid layer '", name_, "': label '",
                   inputs_[nin]->name(), "' must hold one integer id per sample (", rows, "), got ",
                   lab.ids.size());
    const int* ids = lab.ids.data();
    for (size_t r = 0; r < rows; ++r) {
      PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < numClasses_, DataError, "hsigmoid layer '",
                     name_, "': sample ", r, " has label ", ids[r], ", outside [0, ", numClasses_, ")");
    }
    resetOutput(rows, 1);
    pre_.resize(rows, codeLength_);
    pre_.zero();
    const float* b = bias_ ? bias_->value().data() : nullptr;
    for (size_t r = 0; r < rows; ++r) {
      const size_t code = static_cast<size_t>(ids[r]) + numClasses_;
      const int len = findLastSet(code) - 1;
      float* p = pre_.row(r);
      double cost = 0;
      for (int j = 0; j < len; ++j) {
        const size_t node = (code >> (j + 1)) - 1;
        float v = b ? b[node] : 0.0f;
        for (size_t i = 0; i < nin; ++i) v += dot(weight(i)->value().row(node), input(i).value.row(r), inputs_[i]->size());
        v = std::min(40.0f, std::max(-40.0f, v));
        p[j] = v;
        if ((code >> j) & 1) cost -= v;
      }
      for (size_t j = 0; j < codeLength_; ++j) cost += std::log1p(std::exp(p[j]));
      output_.value.row(r)[0] = static_cast<float>(cost);
    }
  }

  void backward() override {
    const size_t rows = pre_.height(), nin = inputs_.size() - 1;
    const int* ids = input(nin).ids.data();
    float* gb = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    for (size_t r = 0; r < rows; ++r) {
      const size_t code = static_cast<size_t>(ids[r]) + numClasses_;
      const int len = findLastSet(code) - 1;
      const float* p = pre_.row(r);
      for (int j = 0; j < len; ++j) {
        const size_t node = (code >> (j + 1)) - 1;
        const float g = coeff_ * (1.0f / (1.0f + std::exp(-p[j])) - static_cast<float>((code >> j) & 1));
        if (gb) gb[node] += g;
        for (size_t i = 0; i < nin; ++i) {
          const size_t d = inputs_[i]->size();
          Parameter* w = weight(i);
          if (!w->isStatic()) axpy(g, input(i).value.row(r), w->grad().row(node), d);
          if (!input(i).grad.empty()) axpy(g, w->value().row(node), input(i).grad.row(r), d);
        }
      }
    }
  }

 private:
  static int findLastSet(size_t x) {  // 1-based position of the highest set bit (0 for 0)
    int n = 0;
    while (x) ++n, x >>= 1;
    return n;
  }
  static float dot(const float* __restrict a, const float* __restrict b, size_t n) {
    float s = 0;
    for (size_t k = 0; k < n; ++k) s += a[k] * b[k];
    return s;
  }
  static void axpy(float g, const float* __restrict x, float* __restrict y, size_t n) {
    for (size_t k = 0; k < n; ++k) y[k] += g * x[k];
  }

  size_t numClasses_ = 0, codeLength_ = 0;
  Matrix pre_;  // [rows, codeLength] clipped node pre-activations
};

// "lambda_cost": LambdaRank (v1). Inputs: the model's scores (size 1) and the relevance
// labels (size 1), both sequences; one sequence is one query's list. Forward writes each
// list's NDCG@NDCG_num (ranking by score) into every row of the list. Backward is LambdaRank:
// with the list sorted by label (descending; only the first max_sort_size positions are
// sorted, all when -1), every pair (i, j > i), i < sortSize, pushes the scores by
//   lambda = -|dDCG_ij| / (1 + exp(s_i - s_j)) / maxDCG   (+ to i, - to j),
// dDCG_ij = (2^l_i - 2^l_j) (1/log(i+2) - 1/log(j+2)) for j < sortSize, else
// (2^l_i - 2^l_j) / log(i+2). It is the gradient of the smooth surrogate
// sum_pairs |dDCG_ij| / maxDCG * log(1 + exp(s_j - s_i)), not of the NDCG it reports.
class LambdaCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, 1);
    checkInputSize(1, 1);
    ndcgNum_ = static_cast<int>(config_.getInt("NDCG_num", 5));
    maxSortSize_ = static_cast<int>(config_.getInt("max_sort_size", -1));
    PADDLE_ENFORCE(ndcgNum_ > 0, ConfigError, "lambda_cost layer '", name_, "': NDCG_num must be positive, got ",
                   ndcgNum_);
    PADDLE_ENFORCE(maxSortSize_ == -1 || maxSortSize_ >= ndcgNum_, ConfigError, "lambda_cost layer '", name_,
                   "': max_sort_size (", maxSortSize_, ") must be -1 or >= NDCG_num (", ndcgNum_, ")");
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& out = input(0);
    const Argument& lab = input(1);
    const size_t rows = out.batchSize();
    PADDLE_ENFORCE(out.hasSeq(), DataError, "lambda_cost layer '", name_, "': input '", inputs_[0]->name(),
                   "' must be a sequence (one sequence = one query's list)");
    PADDLE_ENFORCE(lab.value.height() == rows, DataError, "lambda_cost layer '", name_, "': label '",
                   inputs_[1]->name(), "' has ", lab.value.height(), " rows, expected ", rows,
                   " (relevance labels are dense values)");
    resetOutput(rows, 1);
    const int* starts = out.seqStarts.data();
    for (size_t q = 0; q + 1 < out.seqStarts.size(); ++q) {
      const int b = starts[q], n = starts[q + 1] - starts[q];
      PADDLE_ENFORCE(n >= ndcgNum_, DataError, "lambda_cost layer '", name_, "': sequence ", q, " has ", n,
                     " items, fewer than NDCG_num = ", ndcgNum_);
      const float ndcg = calcNdcg(out.value.data() + b, lab.value.data() + b, n, q);
      for (int k = 0; k < n; ++k) output_.value.data()[b + k] = ndcg;
    }
  }

  void backward() override {
    Argument& out = input(0);
    if (out.grad.empty()) return;
    const float* s = out.value.data();
    const float* l = input(1).value.data();
    float* g = out.grad.data();
    const int* starts = out.seqStarts.data();
    for (size_t q = 0; q + 1 < out.seqStarts.size(); ++q) {
      const int b = starts[q], n = starts[q + 1] - starts[q];
      const int sortSize = maxSortSize_ == -1 ? n : std::min(maxSortSize_, n);
      order_.resize(n);
      for (int k = 0; k < n; ++k) order_[k] = k;
      auto byLabel = [&](int x, int y) { return l[b + x] > l[b + y]; };
      std::partial_sort(order_.begin(), order_.begin() + sortSize, order_.end(), byLabel);
      double maxDcg = 0;
      for (int k = 0; k < ndcgNum_; ++k) maxDcg += (std::pow(2.0, l[b + order_[k]]) - 1) / std::log(k + 2.0);
      for (int i = 0; i < sortSize; ++i) {
        const int a = b + order_[i];
        const double gi = std::pow(2.0, l[a]), di = 1 / std::log(i + 2.0);
        for (int j = i + 1; j < n; ++j) {
          const int c = b + order_[j];
          const double dcgDif = (gi - std::pow(2.0, l[c])) * (j < sortSize ? di - 1 / std::log(j + 2.0) : di);
          const double lambda = -std::abs(dcgDif) / (1 + std::exp(double(s[a]) - s[c])) / maxDcg;
          g[a] += static_cast<float>(coeff_ * lambda);
          g[c] -= static_cast<float>(coeff_ * lambda);
        }
      }
    }
  }

 private:
  float calcNdcg(const float* s, const float* l, int n, size_t q) {
    order_.resize(n);
    for (int k = 0; k < n; ++k) order_[k] = k;
    std::partial_sort(order_.begin(), order_.begin() + ndcgNum_, order_.end(),
                      [&](int x, int y) { return s[x] > s[y]; });
    double dcg = 0;
    for (int k = 0; k < ndcgNum_; ++k) dcg += (std::pow(2.0, l[order_[k]]) - 1) / std::log(k + 2.0);
    std::partial_sort(order_.begin(), order_.begin() + ndcgNum_, order_.end(),
                      [&](int x, int y) { return l[x] > l[y]; });
    double maxDcg = 0;
    for (int k = 0; k < ndcgNum_; ++k) maxDcg += (std::pow(2.0, l[order_[k]]) - 1) / std::log(k + 2.0);
    PADDLE_ENFORCE(maxDcg > 0, DataError, "lambda_cost layer '", name_, "': sequence ", q,
                   " has no positive relevance label among its top NDCG_num (max DCG = 0)");
    return static_cast<float>(dcg / maxDcg);
  }

  int ndcgNum_ = 5, maxSortSize_ = -1;
  std::vector<int> order_;
};

// "nce": noise-contrastive estimation (v1). Inputs: features x_1..x_k (weight i: [num_classes,
// size_i]), the label ids, optionally a per-sample weight (size 1). Each sample is scored on its
// label and on num_neg_samples noise classes drawn uniformly or from neg_sampling_dist:
// o = act(b[c] + sum_i W_i[c] . x_i); with q = num_neg_samples * P_noise(c), the cost is
// -log(o / (o + q)) for the label and -log(q / (o + q)) for each noise class (times the
// sample weight). Gradient checks (PASS_GC) draw the same noise classes at every forward.
class NceCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    const int64_t n = config_.getInt("num_classes", 0);
    PADDLE_ENFORCE(n >= 2, ConfigError, "nce layer '", name_, "': num_classes must be >= 2, got ", n);
    numClasses_ = static_cast<size_t>(n);
    numNeg_ = static_cast<int>(config_.getInt("num_neg_samples", 10));
    PADDLE_ENFORCE(numNeg_ > 0, ConfigError, "nce layer '", name_, "': num_neg_samples must be positive, got ",
                   numNeg_);
    numIn_ = 0;
    while (numIn_ < inputs_.size() && weight(numIn_)) ++numIn_;
    PADDLE_ENFORCE(numIn_ >= 1 && numIn_ < inputs_.size() && inputs_.size() <= numIn_ + 2, ConfigError,
                   "nce layer '", name_, "': inputs must be features (with weights), the label, and optionally "
                   "a sample weight; got ", inputs_.size(), " inputs of which ", numIn_, " have weights");
    for (size_t i = 0; i < numIn_; ++i) {
      PADDLE_ENFORCE(weight(i)->size() == numClasses_ * inputs_[i]->size(), ConfigError, "nce layer '", name_,
                     "': weight '", weight(i)->name(), "' has ", weight(i)->size(), " values, expected ",
                     numClasses_, "x", inputs_[i]->size());
    }
    hasWeight_ = inputs_.size() == numIn_ + 2;
    if (hasWeight_) checkInputSize(numIn_ + 1, 1);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == numClasses_, ConfigError, "nce layer '", name_, "': bias '", bias_->name(),
                     "' has ", bias_->size(), " values, expected num_classes = ", numClasses_);
    }
    dist_.clear();
    if (config_.has("neg_sampling_dist")) {
      for (const Json& v : config_["neg_sampling_dist"].items()) dist_.push_back(v.asDouble());
    }
    PADDLE_ENFORCE(dist_.empty() || dist_.size() == numClasses_, ConfigError, "nce layer '", name_,
                   "': neg_sampling_dist has ", dist_.size(), " values, expected num_classes = ", numClasses_);
    if (!dist_.empty()) sampler_ = std::discrete_distribution<int>(dist_.begin(), dist_.end());
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    for (size_t i = 0; i < numIn_; ++i) {
      PADDLE_ENFORCE(input(i).value.height() == rows && input(i).value.width() == inputs_[i]->size(), DataError,
                     "nce layer '", name_, "': input '", inputs_[i]->name(), "' is ", shapeStr(input(i).value),
                     ", expected ", rows, "x", inputs_[i]->size());
    }
    const Argument& lab = input(numIn_);
    PADDLE_ENFORCE(lab.ids.size() == rows, DataError, "nce layer '", name_, "': label '", inputs_[numIn_]->name(),
                   "' must hold one integer id per sample (", rows, "), got ", lab.ids.size());
    const int* ids = lab.ids.data();
    for (size_t r = 0; r < rows; ++r) {
      PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < numClasses_, DataError, "nce layer '", name_,
                     "': sample ", r, " has label ", ids[r], ", outside [0, ", numClasses_, ")");
    }
    // the samples: per row, the label then numNeg_ noise classes
    std::mt19937 gcRng(12345);
    std::mt19937& rng = pass_ == PASS_GC ? gcRng : *rng_;
    std::uniform_int_distribution<int> uniform(0, static_cast<int>(numClasses_) - 1);
    const size_t S = rows * (1 + numNeg_);
    classes_.resize(S);
    for (size_t r = 0; r < rows; ++r) {
      classes_[r * (1 + numNeg_)] = ids[r];
      for (int k = 1; k <= numNeg_; ++k) classes_[r * (1 + numNeg_) + k] = dist_.empty() ? uniform(rng) : sampler_(rng);
    }
    samples_.value.resize(1, S);
    float* o = samples_.value.data();
    const float* b = bias_ ? bias_->value().data() : nullptr;
    for (size_t s = 0; s < S; ++s) {
      const size_t r = s / (1 + numNeg_), c = static_cast<size_t>(classes_[s]);
      float v = b ? b[c] : 0.0f;
      for (size_t i = 0; i < numIn_; ++i) {
        const float* __restrict w = weight(i)->value().row(c);
        const float* __restrict x = input(i).value.row(r);
        for (size_t k = 0, d = inputs_[i]->size(); k < d; ++k) v += w[k] * x[k];
      }
      o[s] = v;
    }
    activation_->forward(samples_);
    resetOutput(rows, 1);
    output_.value.zero();
    float* out = output_.value.data();
    for (size_t s = 0; s < S; ++s) {
      const size_t r = s / (1 + numNeg_);
      const double q = noise(classes_[s]), p = o[s];
      const double cost = s % (1 + numNeg_) == 0 ? -std::log(p / (p + q)) : -std::log(q / (p + q));
      out[r] += static_cast<float>(sampleWeight(r) * cost);
    }
  }

  void backward() override {
    const size_t S = classes_.size();
    samples_.grad.resize(1, S);
    const float* o = samples_.value.data();
    float* g = samples_.grad.data();
    for (size_t s = 0; s < S; ++s) {
      const size_t r = s / (1 + numNeg_);
      const double q = noise(classes_[s]), p = o[s], w = coeff_ * sampleWeight(r);
      g[s] = static_cast<float>(s % (1 + numNeg_) == 0 ? -w * q / (p * (p + q)) : w / (p + q));
    }
    activation_->backward(samples_);
    float* gb = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    for (size_t s = 0; s < S; ++s) {
      const size_t r = s / (1 + numNeg_), c = static_cast<size_t>(classes_[s]);
      if (gb) gb[c] += g[s];
      for (size_t i = 0; i < numIn_; ++i) {
        Parameter* w = weight(i);
        const size_t d = inputs_[i]->size();
        if (!w->isStatic()) {
          float* __restrict gw = w->grad().row(c);
          const float* __restrict x = input(i).value.row(r);
          for (size_t k = 0; k < d; ++k) gw[k] += g[s] * x[k];
        }
        if (!input(i).grad.empty()) {
          float* __restrict gx = input(i).grad.row(r);
          const float* __restrict wr = w->value().row(c);
          for (size_t k = 0; k < d; ++k) gx[k] += g[s] * wr[k];
        }
      }
    }
  }

 private:
  double noise(int c) const {  // num_neg_samples x P_noise(c)
    return dist_.empty() ? static_cast<double>(numNeg_) / numClasses_ : numNeg_ * dist_[c];
  }
  double sampleWeight(size_t r) { return hasWeight_ ? input(numIn_ + 1).value.row(r)[0] : 1.0; }

  size_t numClasses_ = 0, numIn_ = 0;
  int numNeg_ = 10;
  bool hasWeight_ = false;
  std::vector<double> dist_;
  std::discrete_distribution<int> sampler_;
  std::vector<int> classes_;  // per sample: the class scored (label first, then the noise classes)
  Argument samples_;          // [1, rows * (1 + num_neg_samples)] scores o
};

REGISTER_LAYER("multi-class-cross-entropy", MultiClassCrossEntropy);
REGISTER_LAYER("square_error", SquareError);
REGISTER_LAYER("multi_class_cross_entropy_with_selfnorm", MultiClassCrossEntropyWithSelfNorm);
REGISTER_LAYER("multi_binary_label_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("soft_binary_class_cross_entropy", BinaryCrossEntropy);
REGISTER_LAYER("huber", HuberTwoClass);
REGISTER_LAYER("rank-cost", RankCost);
REGISTER_LAYER("sum_cost", SumCost);
REGISTER_LAYER("hsigmoid", HierarchicalSigmoid);
REGISTER_LAYER("lambda_cost", LambdaCost);
REGISTER_LAYER("nce", NceCost);

}  // namespace paddle
