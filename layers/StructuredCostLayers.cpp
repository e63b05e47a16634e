// Structured cost layers (CostLayers.h has the base classes): "hsigmoid" (hierarchical
// sigmoid over a binary code tree), "lambda_cost" (LambdaRank on NDCG) and "nce"
// (noise-contrastive estimation with sampled negatives). CPU and GPU alike (forEach loops).
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "layers/CostLayers.h"

namespace paddle {

// "hsigmoid": hierarchical sigmoid over a complete binary tree of num_classes leaves (v1).
// Class c's code is b = c + num_classes; its path has len(b) = floor(log2 b) nodes, node j
// (j < len) being inner node (b >> (j+1)) - 1 with target bit (b >> j) & 1. Inputs: features
// x_1..x_k (weight i: [num_classes - 1, size_i], row = node), then the label ids; bias: one
// per node. pre[j] = clip(b[node] + sum_i W_i[node] . x_i, -40, 40) for j < len, 0 for
// len <= j < codeLength = floor(log2(num_classes - 1)) + 1, and
//   cost = sum_{j < codeLength} softrelu(pre[j]) - sum_{j < len, bit j set} pre[j]
// (as in v1, the unused positions add log 2 each, a constant).
// The node kernels run one index per (sample, path position); their backward adds into the
// node weight rows (shared by samples) and into the sample's input rows atomically.
class HierarchicalSigmoid : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    PADDLE_ENFORCE(inputs_.size() >= 2, ConfigError, "hsigmoid layer '", name_,
                   "' needs at least one feature input and the label input, got ", inputs_.size(), " inputs");
    const int64_t n = config_.getInt("num_classes");
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
    const int* ids = checkedLabels(lab.ids, rows, numClasses_, useGpu_, idScratch_, badLabel_,
                                   str("hsigmoid layer '", name_, "'"));
    resetOutput(rows, 1);
    pre_.setDevice(useGpu_);
    pre_.resize(rows, codeLength_);
    float* p = pre_.data();
    const size_t cl = codeLength_, numClasses = numClasses_;
    const float* b = bias_ ? bias_->value().data() : nullptr;
    forEach2(useGpu_, rows, cl, [=] PD_HD(size_t r, size_t j) {
      const size_t code = static_cast<size_t>(ids[r]) + numClasses;
      const bool onPath = static_cast<int>(j) < findLastSet(code) - 1;
      p[r * cl + j] = onPath && b ? b[(code >> (j + 1)) - 1] : 0.0f;
    });
    for (size_t i = 0; i < nin; ++i) {
      const size_t d = inputs_[i]->size();
      const float* W = weight(i)->value().data();
      const float* x = input(i).value.data();
      forEach2(useGpu_, rows, cl, [=] PD_HD(size_t r, size_t j) {
        const size_t code = static_cast<size_t>(ids[r]) + numClasses;
        if (static_cast<int>(j) >= findLastSet(code) - 1) return;
        p[r * cl + j] += dot(W + ((code >> (j + 1)) - 1) * d, x + r * d, d);
      });
    }
    float* cost = output_.value.data();
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      const size_t code = static_cast<size_t>(ids[r]) + numClasses;
      const int len = findLastSet(code) - 1;
      float* pr = p + r * cl;
      double c = 0;
      for (int j = 0; j < len; ++j) {
        const float v = std::min(40.0f, std::max(-40.0f, pr[j]));
        pr[j] = v;
        if ((code >> j) & 1) c -= v;
      }
      for (size_t j = 0; j < cl; ++j) c += std::log1p(std::exp(pr[j]));
      cost[r] = static_cast<float>(c);
    });
  }

  void backward() override {
    const size_t rows = pre_.height(), nin = inputs_.size() - 1;
    const size_t cl = codeLength_, numClasses = numClasses_;
    const int* ids = kernelView(input(nin).ids, idScratch_, useGpu_);
    const float* p = pre_.data();
    gradPre_.setDevice(useGpu_);
    gradPre_.resize(rows, cl);
    float* gp = gradPre_.data();  // d cost / d pre[r, j], set for j < len
    float* gb = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach2(useGpu_, rows, cl, [=] PD_HD(size_t r, size_t j) {
      const size_t code = static_cast<size_t>(ids[r]) + numClasses;
      if (static_cast<int>(j) >= findLastSet(code) - 1) return;
      const float g = coeff * (1.0f / (1.0f + std::exp(-p[r * cl + j])) - static_cast<float>((code >> j) & 1));
      gp[r * cl + j] = g;
      if (gb) atomicAddF(gb + (code >> (j + 1)) - 1, g);
    });
    for (size_t i = 0; i < nin; ++i) {
      const size_t d = inputs_[i]->size();
      Parameter* w = weight(i);
      const float* W = w->value().data();
      float* gW = w->isStatic() ? nullptr : w->grad().data();
      const float* x = input(i).value.data();
      float* gx = input(i).grad.empty() ? nullptr : input(i).grad.data();
      forEach2(useGpu_, rows, cl, [=] PD_HD(size_t r, size_t j) {
        const size_t code = static_cast<size_t>(ids[r]) + numClasses;
        if (static_cast<int>(j) >= findLastSet(code) - 1) return;
        const float g = gp[r * cl + j];
        const size_t node = (code >> (j + 1)) - 1;
        if (gW) addScaled(g, x + r * d, gW + node * d, d);
        if (gx) addScaled(g, W + node * d, gx + r * d, d);
      });
    }
  }

 private:
  size_t numClasses_ = 0, codeLength_ = 0;
  Matrix pre_;      // [rows, codeLength] clipped node pre-activations
  Matrix gradPre_;  // [rows, codeLength] their gradients
  IVector idScratch_;
  RowFlag badLabel_;
};

namespace {
// Moves the k entries of order[0, n) with the largest key[order[.]] to the front, largest
// first, ties in their present order: a stable selection sort, O(n k), in place (order is
// the query's slice of a buffer, so device code needs no memory of its own).
PD_HD inline void selectLargest(int* order, int n, int k, const float* key) {
  for (int i = 0; i < k; ++i) {
    int best = i;
    for (int j = i + 1; j < n; ++j)
      if (key[order[j]] > key[order[best]]) best = j;
    const int chosen = order[best];
    for (int j = best; j > i; --j) order[j] = order[j - 1];
    order[i] = chosen;
  }
}

// DCG of the first k entries of order: sum (2^l - 1) / log(position + 2).
PD_HD inline double topDcg(const float* l, const int* order, int k) {
  double dcg = 0;
  for (int i = 0; i < k; ++i) dcg += (std::pow(2.0, static_cast<double>(l[order[i]])) - 1) / std::log(i + 2.0);
  return dcg;
}
}  // namespace

// "lambda_cost": LambdaRank (v1). Inputs: the model's scores (size 1) and the relevance
// labels (size 1), both sequences; one sequence is one query's list. Forward writes each
// list's NDCG@NDCG_num (ranking by score) into every row of the list. Backward is LambdaRank:
// with the list sorted by label (descending; only the first max_sort_size positions are
// sorted, all when -1), every pair (i, j > i), i < sortSize, pushes the scores by
//   lambda = -|dDCG_ij| / (1 + exp(s_i - s_j)) / maxDCG   (+ to i, - to j),
// dDCG_ij = (2^l_i - 2^l_j) (1/log(i+2) - 1/log(j+2)) for j < sortSize, else
// (2^l_i - 2^l_j) / log(i+2). It is the gradient of the smooth surrogate
// sum_pairs |dDCG_ij| / maxDCG * log(1 + exp(s_j - s_i)), not of the NDCG it reports.
// Both passes run one index per query (sorting its slice of order_ with selectLargest).
class LambdaCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    checkInputCount(2, 2);
    checkInputSize(0, 1);
    checkInputSize(1, 1);
    ndcgNum_ = static_cast<int>(config_.getInt("NDCG_num"));
    maxSortSize_ = static_cast<int>(config_.getInt("max_sort_size"));
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
    const size_t numSeq = out.numSequences();
    for (size_t q = 0; q < numSeq; ++q) {
      const int n = out.seqStarts.data()[q + 1] - out.seqStarts.data()[q];
      PADDLE_ENFORCE(n >= ndcgNum_, DataError, "lambda_cost layer '", name_, "': sequence ", q, " has ", n,
                     " items, fewer than NDCG_num = ", ndcgNum_);
    }
    const int* starts = kernelView(out.seqStarts, startsScratch_, useGpu_);
    order_.setDevice(useGpu_);
    order_.resize(1, rows);
    int* order = order_.data();
    const float* s = out.value.data();
    const float* l = lab.value.data();
    float* cost = output_.value.data();
    const int ndcgNum = ndcgNum_;
    int* bad = noRelevance_.reset(useGpu_);
    forEach(useGpu_, numSeq, [=] PD_HD(size_t q) {
      const int b = starts[q], n = starts[q + 1] - b;
      int* ord = order + b;
      for (int k = 0; k < n; ++k) ord[k] = k;
      selectLargest(ord, n, ndcgNum, s + b);
      const double dcg = topDcg(l + b, ord, ndcgNum);
      selectLargest(ord, n, ndcgNum, l + b);
      const double maxDcg = topDcg(l + b, ord, ndcgNum);
      if (!(maxDcg > 0)) flagRow(bad, static_cast<int>(q));
      const float ndcg = static_cast<float>(dcg / maxDcg);
      for (int k = 0; k < n; ++k) cost[b + k] = ndcg;
    });
    const int q = noRelevance_.first();
    PADDLE_ENFORCE(q < 0, DataError, "lambda_cost layer '", name_, "': sequence ", q,
                   " has no positive relevance label among its top NDCG_num (max DCG = 0)");
  }

  void backward() override {
    Argument& out = input(0);
    if (out.grad.empty()) return;
    const int* starts = kernelView(out.seqStarts, startsScratch_, useGpu_);
    int* order = order_.data();
    const float* s = out.value.data();
    const float* l = input(1).value.data();
    float* g = out.grad.data();
    const int ndcgNum = ndcgNum_, maxSortSize = maxSortSize_;
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, out.numSequences(), [=] PD_HD(size_t q) {
      const int b = starts[q], n = starts[q + 1] - b;
      const int sortSize = maxSortSize == -1 ? n : std::min(maxSortSize, n);
      int* ord = order + b;
      for (int k = 0; k < n; ++k) ord[k] = k;
      selectLargest(ord, n, sortSize, l + b);
      const double maxDcg = topDcg(l + b, ord, ndcgNum);
      for (int i = 0; i < sortSize; ++i) {
        const int a = b + ord[i];
        const double gi = std::pow(2.0, static_cast<double>(l[a])), di = 1 / std::log(i + 2.0);
        for (int j = i + 1; j < n; ++j) {
          const int c = b + ord[j];
          const double dcgDif =
              (gi - std::pow(2.0, static_cast<double>(l[c]))) * (j < sortSize ? di - 1 / std::log(j + 2.0) : di);
          const double lambda = -std::abs(dcgDif) / (1 + std::exp(static_cast<double>(s[a]) - s[c])) / maxDcg;
          g[a] += static_cast<float>(coeff * lambda);
          g[c] -= static_cast<float>(coeff * lambda);
        }
      }
    });
  }

 private:
  int ndcgNum_ = 5, maxSortSize_ = -1;
  IVector order_;          // per query, its rows' order (local indices) in its slice
  IVector startsScratch_;  // device copy of the sequence starts in GPU runs
  RowFlag noRelevance_;
};

namespace {
// num_neg_samples x P_noise(c); dist null: uniform noise.
PD_HD inline double nceNoise(const double* dist, int numNeg, size_t numClasses, int c) {
  return dist ? numNeg * dist[c] : static_cast<double>(numNeg) / numClasses;
}
}  // namespace

// "nce": noise-contrastive estimation (v1). Inputs: features x_1..x_k (weight i: [num_classes,
// size_i]), the label ids, optionally a per-sample weight (size 1). Each sample is scored on its
// label and on num_neg_samples noise classes drawn uniformly or from neg_sampling_dist:
// o = act(b[c] + sum_i W_i[c] . x_i); with q = num_neg_samples * P_noise(c), the cost is
// -log(o / (o + q)) for the label and -log(q / (o + q)) for each noise class (times the
// sample weight). Gradient checks (PASS_GC) draw the same noise classes at every forward.
// The noise classes are drawn on the host and copied to the device; kernels run one index
// per scored (sample, class) pair, adding into shared weight rows atomically.
class NceCost : public FreeCostLayer {
 public:
  using FreeCostLayer::FreeCostLayer;

  void init(LayerContext& ctx) override {
    FreeCostLayer::init(ctx);
    const int64_t n = config_.getInt("num_classes");
    PADDLE_ENFORCE(n >= 2, ConfigError, "nce layer '", name_, "': num_classes must be >= 2, got ", n);
    numClasses_ = static_cast<size_t>(n);
    numNeg_ = static_cast<int>(config_.getInt("num_neg_samples"));
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
    std::vector<double> dist;
    if (config_.has("neg_sampling_dist")) {
      for (const Json& v : config_["neg_sampling_dist"].items()) dist.push_back(v.asDouble());
    }
    PADDLE_ENFORCE(dist.empty() || dist.size() == numClasses_, ConfigError, "nce layer '", name_,
                   "': neg_sampling_dist has ", dist.size(), " values, expected num_classes = ", numClasses_);
    if (!dist.empty()) sampler_ = std::discrete_distribution<int>(dist.begin(), dist.end());
    dist_.setDevice(useGpu_);
    dist_.copyFromHost(dist.data(), 1, dist.size());
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
    const int* ids = checkedLabels(lab.ids, rows, numClasses_, useGpu_, idScratch_, badLabel_,
                                   str("nce layer '", name_, "'"));
    // the samples: per row, the label (put in place on the device) then numNeg_ noise classes
    std::mt19937 gcRng(12345);
    std::mt19937& rng = pass_ == PASS_GC ? gcRng : *rng_;
    std::uniform_int_distribution<int> uniform(0, static_cast<int>(numClasses_) - 1);
    const size_t per = 1 + numNeg_, S = rows * per;
    hostClasses_.resize(S);
    for (size_t r = 0; r < rows; ++r) {
      hostClasses_[r * per] = -1;
      for (size_t k = 1; k < per; ++k) hostClasses_[r * per + k] = dist_.empty() ? uniform(rng) : sampler_(rng);
    }
    classes_.setDevice(useGpu_);
    classes_.copyFromHost(hostClasses_.data(), 1, S);
    int* cls = classes_.data();
    forEach(useGpu_, rows, [=] PD_HD(size_t r) { cls[r * per] = ids[r]; });

    samples_.value.setDevice(useGpu_);
    samples_.value.resize(1, S);
    float* o = samples_.value.data();
    const float* b = bias_ ? bias_->value().data() : nullptr;
    forEach(useGpu_, S, [=] PD_HD(size_t s) { o[s] = b ? b[cls[s]] : 0.0f; });
    for (size_t i = 0; i < numIn_; ++i) {
      const size_t d = inputs_[i]->size();
      const float* W = weight(i)->value().data();
      const float* x = input(i).value.data();
      forEach(useGpu_, S, [=] PD_HD(size_t s) {
        const float* __restrict w = W + static_cast<size_t>(cls[s]) * d;
        const float* __restrict xr = x + (s / per) * d;
        float v = o[s];
        for (size_t k = 0; k < d; ++k) v += w[k] * xr[k];
        o[s] = v;
      });
    }
    activation_->forward(samples_);
    resetOutput(rows, 1);
    float* out = output_.value.data();
    const double* dist = dist_.empty() ? nullptr : dist_.data();
    const float* sw = hasWeight_ ? input(numIn_ + 1).value.data() : nullptr;
    const int numNeg = numNeg_;
    const size_t numClasses = numClasses_;
    forEach(useGpu_, rows, [=] PD_HD(size_t r) {
      const double w = sw ? sw[r] : 1.0;
      float c = 0;
      for (size_t s = r * per; s < (r + 1) * per; ++s) {
        const double q = nceNoise(dist, numNeg, numClasses, cls[s]), p = o[s];
        const double cost = s == r * per ? -std::log(p / (p + q)) : -std::log(q / (p + q));
        c += static_cast<float>(w * cost);
      }
      out[r] = c;
    });
  }

  void backward() override {
    const size_t S = classes_.size(), per = 1 + numNeg_;
    samples_.grad.setDevice(useGpu_);
    samples_.grad.resize(1, S);
    const int* cls = classes_.data();
    const float* o = samples_.value.data();
    float* g = samples_.grad.data();
    const double* dist = dist_.empty() ? nullptr : dist_.data();
    const float* sw = hasWeight_ ? input(numIn_ + 1).value.data() : nullptr;
    const int numNeg = numNeg_;
    const size_t numClasses = numClasses_;
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, S, [=] PD_HD(size_t s) {
      const size_t r = s / per;
      const double q = nceNoise(dist, numNeg, numClasses, cls[s]), p = o[s], w = coeff * (sw ? sw[r] : 1.0);
      g[s] = static_cast<float>(s % per == 0 ? -w * q / (p * (p + q)) : w / (p + q));
    });
    activation_->backward(samples_);
    if (bias_ && !bias_->isStatic()) {
      float* gb = bias_->grad().data();
      forEach(useGpu_, S, [=] PD_HD(size_t s) { atomicAddF(gb + cls[s], g[s]); });
    }
    for (size_t i = 0; i < numIn_; ++i) {
      Parameter* w = weight(i);
      const size_t d = inputs_[i]->size();
      const float* W = w->value().data();
      float* gW = w->isStatic() ? nullptr : w->grad().data();
      const float* x = input(i).value.data();
      float* gx = input(i).grad.empty() ? nullptr : input(i).grad.data();
      forEach(useGpu_, S, [=] PD_HD(size_t s) {
        const size_t r = s / per, c = static_cast<size_t>(cls[s]);
        if (gW) addScaled(g[s], x + r * d, gW + c * d, d);
        if (gx) addScaled(g[s], W + c * d, gx + r * d, d);
      });
    }
  }

 private:
  size_t numClasses_ = 0, numIn_ = 0;
  int numNeg_ = 10;
  bool hasWeight_ = false;
  DenseBuffer<double> dist_;  // neg_sampling_dist on the layer's device, empty for uniform noise
  std::discrete_distribution<int> sampler_;
  std::vector<int> hostClasses_;
  IVector classes_;  // per sample: the class scored (label first, then the noise classes)
  Argument samples_;  // [1, rows * (1 + num_neg_samples)] scores o
  IVector idScratch_;
  RowFlag badLabel_;
};

REGISTER_LAYER("hsigmoid", HierarchicalSigmoid);
REGISTER_LAYER("lambda_cost", LambdaCost);
REGISTER_LAYER("nce", NceCost);

}  // namespace paddle
