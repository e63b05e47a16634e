// Linear-chain CRF layers (v1 semantics):
//   "crf": cost -log P(s | x) per sequence; inputs [emissions x (size C, with the
//        CRF parameter), label ids (same rows)(, weight: one row of size 1 per
//        sequence)]; output [#sequences, 1].
//   "crf_decoding": Viterbi. Without a label its output is the best tag per token
//        in `ids`; with a label input it also outputs value [rows, 1] = 1 where
//        the best tag differs from the label, else 0.
// The parameter (shared by name between the two) holds (C+2)*C values:
// start weights a[C], end weights b[C], transitions w[C][C] (w[j*C+i]: tag j
// followed by tag i). For a sequence of length L,
//   score(s) = a[s_0] + b[s_{L-1}] + sum_t x[t][s_t] + sum_{t>0} w[s_{t-1}][s_t]
// and P(s|x) = exp(score(s)) / Z. Forward-backward runs in log space (double,
// log-sum-exp), so long sequences and large scores neither overflow nor underflow.
// The dynamic programmes run one kernel index per sequence (Kernel.h), on either device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/Layer.h"

namespace paddle {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// out[i] = log sum_j exp(v[j] + w[j*C + i]), for i < C. scratch holds C*C + C doubles.
PD_HD inline void logSumExpCols(const double* v, const float* w, size_t C, double* out, double* scratch) {
  double* t = scratch;
  double* m = scratch + C * C;
  for (size_t i = 0; i < C; ++i) m[i] = kNegInf;
  for (size_t j = 0; j < C; ++j) {
    const float* wj = w + j * C;
    double* tj = t + j * C;
    for (size_t i = 0; i < C; ++i) {
      tj[i] = v[j] + wj[i];
      m[i] = tj[i] > m[i] ? tj[i] : m[i];
    }
  }
  for (size_t i = 0; i < C; ++i) out[i] = 0;
  for (size_t j = 0; j < C; ++j) {
    const double* tj = t + j * C;
    for (size_t i = 0; i < C; ++i) out[i] += std::exp(tj[i] - m[i]);
  }
  for (size_t i = 0; i < C; ++i) out[i] = m[i] + std::log(out[i]);
}

// out[j] = log sum_i exp(w[j*C + i] + v[i]), for j < C. scratch holds C doubles.
PD_HD inline void logSumExpRows(const double* v, const float* w, size_t C, double* out, double* scratch) {
  for (size_t j = 0; j < C; ++j) {
    const float* wj = w + j * C;
    double m = kNegInf;
    for (size_t i = 0; i < C; ++i) {
      scratch[i] = wj[i] + v[i];
      m = scratch[i] > m ? scratch[i] : m;
    }
    double s = 0;
    for (size_t i = 0; i < C; ++i) s += std::exp(scratch[i] - m);
    out[j] = m + std::log(s);
  }
}

}  // namespace

// Shared by crf and crf_decoding: the CRF parameter, the sequence and label checks.
class CRFLayerBase : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    numClasses_ = size_;
    PADDLE_ENFORCE(numClasses_ >= 1, ConfigError, type_, " layer needs a positive size (the number of tags)");
    checkInputSize(0, numClasses_);
    param_ = weight(0);
    PADDLE_ENFORCE(param_, ConfigError, type_, " layer: input 0 ('", inputs_[0]->name(),
                   "') needs the CRF parameter (input_parameter_name)");
    PADDLE_ENFORCE(param_->size() == (numClasses_ + 2) * numClasses_, ConfigError, "parameter '", param_->name(),
                   "' (input_parameter_name of input 0) has ", param_->size(), " values, expected (size + 2) * size = ",
                   (numClasses_ + 2) * numClasses_);
    for (size_t i = 1; i < inputs_.size(); ++i) {
      PADDLE_ENFORCE(!weight(i), ConfigError, "input ", i, " ('", inputs_[i]->name(), "') must not have a parameter");
    }
  }

 protected:
  // Checks the emissions and returns their sequence starts where kernels read them
  // (a single sequence when the input has none is refused: a CRF needs sequences).
  const int* sequences() {
    const Argument& x = input(0);
    PADDLE_ENFORCE(x.hasSeq(), DataError, "layer '", name_, "': input '", inputs_[0]->name(),
                   "' is not a sequence (", type_, " needs sequence start positions)");
    PADDLE_ENFORCE(!x.value.empty() || x.batchSize() == 0, DataError, "layer '", name_, "': input '",
                   inputs_[0]->name(), "' has no dense value");
    const int* st = x.seqStarts.data();
    for (size_t k = 0; k + 1 < x.seqStarts.size(); ++k) {
      PADDLE_ENFORCE(st[k + 1] > st[k], DataError, "layer '", name_, "': sequence ", k,
                     " is empty (", type_, " needs at least one token)");
    }
    return kernelView(x.seqStarts, starts_, useGpu_);
  }

  // The label ids where kernels read them, checked (on the host) against the
  // emissions' rows, sequences and tag range.
  const int* labels(size_t labelInput) {
    const Argument& x = input(0);
    const Argument& y = input(labelInput);
    const std::string& lname = inputs_[labelInput]->name();
    PADDLE_ENFORCE(!y.ids.empty() || x.batchSize() == 0, DataError, "layer '", name_, "': label '", lname,
                   "' must be integer ids (integer_value_sequence)");
    PADDLE_ENFORCE(y.ids.size() == x.batchSize(), DataError, "layer '", name_, "': label '", lname, "' has ",
                   y.ids.size(), " tokens but input '", inputs_[0]->name(), "' has ", x.batchSize());
    if (y.hasSeq()) {
      bool same = y.seqStarts.size() == x.seqStarts.size() &&
                  std::equal(x.seqStarts.data(), x.seqStarts.data() + x.seqStarts.size(), y.seqStarts.data());
      PADDLE_ENFORCE(same, DataError, "layer '", name_, "': label '", lname,
                     "' is cut into sequences differently from input '", inputs_[0]->name(), "'");
    }
    hostLabels_.resize(y.ids.size());
    y.ids.copyToHost(hostLabels_.data());
    const int* ids = hostLabels_.data();
    const int* st = x.seqStarts.data();
    for (size_t k = 0; k + 1 < x.seqStarts.size(); ++k) {
      for (int r = st[k]; r < st[k + 1]; ++r) {
        PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < numClasses_, DataError, "layer '", name_,
                       "': sequence ", k, " token ", r - st[k], " has label ", ids[r], ", outside [0, ", numClasses_,
                       ")");
      }
    }
    return kernelView(y.ids, labels_, useGpu_);
  }

  size_t numClasses_ = 0;
  Parameter* param_ = nullptr;

 private:
  IVector starts_, labels_;
  std::vector<int> hostLabels_;
};

// "crf": negative log-likelihood of the label sequence.
class CRFLayer : public CRFLayerBase {
 public:
  using CRFLayerBase::CRFLayerBase;
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    CRFLayerBase::init(ctx);
    checkInputCount(2, 3);
    coeff_ = static_cast<float>(config_.getDouble("coeff"));
    if (inputs_.size() == 3) checkInputSize(2, 1);
    for (auto* b : {&alpha_, &beta_, &scratch_, &logZ_, &pgrad_}) b->setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const int* st = sequences();
    const int* y = labels(1);
    const size_t C = numClasses_, n = input(0).numSequences(), rows = input(0).batchSize();
    const float* weights = nullptr;
    if (inputs_.size() == 3) {
      const Matrix& wv = input(2).value;
      PADDLE_ENFORCE(wv.height() == n && wv.width() == 1, DataError, "layer '", name_, "': weight '",
                     inputs_[2]->name(), "' must have one row per sequence (", n, "x1), got ", shapeStr(wv));
      weights = wv.data();
    }
    resetOutput(n, 1);
    alpha_.resize(rows, C);
    logZ_.resize(1, n);
    scratch_.resize(n, C * C + 3 * C);
    const size_t scratchW = scratch_.width();
    const float* x = input(0).value.data();
    const float* a = param_->value().data();  // start weights, then end weights, then transitions
    const float* b = a + C;
    const float* w = a + 2 * C;
    double* alpha = alpha_.data();
    double* logZ = logZ_.data();
    double* scratch = scratch_.data();
    float* cost = output_.value.data();
    forEach(useGpu_, n, [=] PD_HD(size_t k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      double* al = alpha + r0 * C;
      for (size_t i = 0; i < C; ++i) al[i] = static_cast<double>(a[i]) + x[r0 * C + i];
      for (size_t t = 1; t < len; ++t) {
        double* cur = al + t * C;
        logSumExpCols(cur - C, w, C, cur, scratch + k * scratchW);
        for (size_t i = 0; i < C; ++i) cur[i] += x[(r0 + t) * C + i];
      }
      // log Z = logsumexp_i(alpha[L-1][i] + b[i])
      const double* last = al + (len - 1) * C;
      double m = kNegInf;
      for (size_t i = 0; i < C; ++i) m = last[i] + b[i] > m ? last[i] + b[i] : m;
      double s = 0;
      for (size_t i = 0; i < C; ++i) s += std::exp(last[i] + b[i] - m);
      logZ[k] = m + std::log(s);
      // score of the labelled path
      const int* yk = y + r0;
      double score = static_cast<double>(a[yk[0]]) + b[yk[len - 1]];
      for (size_t t = 0; t < len; ++t) score += x[(r0 + t) * C + yk[t]];
      for (size_t t = 1; t < len; ++t) score += w[yk[t - 1] * C + yk[t]];
      const double c = logZ[k] - score;
      cost[k] = static_cast<float>(weights ? c * weights[k] : c);
    });
    labelsView_ = y;
    startsView_ = st;
  }

  void backward() override {
    Argument& xa = input(0);
    const bool needX = !xa.grad.empty();
    const bool needW = !param_->isStatic() && !param_->grad().empty();
    if (!needX && !needW) return;
    const size_t C = numClasses_, n = xa.numSequences(), P = (C + 2) * C;
    const int* st = startsView_;
    const int* y = labelsView_;
    const float* weights = inputs_.size() == 3 ? input(2).value.data() : nullptr;
    const float* x = xa.value.data();
    float* gx = needX ? xa.grad.data() : nullptr;
    const float* b = param_->value().data() + C;
    const float* w = param_->value().data() + 2 * C;
    beta_.resize(xa.batchSize(), C);
    if (needW) {  // one gradient per sequence, summed below (no races, double precision)
      pgrad_.resize(n, P);
      pgrad_.zero();
    }
    double* pgrad = needW ? pgrad_.data() : nullptr;
    const double* alpha = alpha_.data();
    const double* logZ = logZ_.data();
    double* beta = beta_.data();
    double* scratch = scratch_.data();
    const size_t scratchW = scratch_.width();
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, n, [=] PD_HD(size_t k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      const double scale = coeff * (weights ? weights[k] : 1.0f);
      const double* al = alpha + r0 * C;
      const double lz = logZ[k];
      double* be = beta + r0 * C;
      double* v = scratch + k * scratchW;
      double* gam = v + C;
      double* tmp = v + 2 * C;
      for (size_t i = 0; i < C; ++i) be[(len - 1) * C + i] = b[i];
      for (size_t t = len - 1; t-- > 0;) {
        for (size_t i = 0; i < C; ++i) v[i] = x[(r0 + t + 1) * C + i] + be[(t + 1) * C + i];
        logSumExpRows(v, w, C, be + t * C, tmp);
      }
      const int* yk = y + r0;
      double* pg = pgrad ? pgrad + k * P : nullptr;
      // Node marginals: d cost / d x[t][i] = P(s_t = i) - [y_t == i].
      for (size_t t = 0; t < len; ++t) {
        for (size_t i = 0; i < C; ++i) gam[i] = std::exp(al[t * C + i] + be[t * C + i] - lz);
        gam[yk[t]] -= 1.0;
        if (gx)
          for (size_t i = 0; i < C; ++i) gx[(r0 + t) * C + i] += static_cast<float>(scale * gam[i]);
        if (pg && t == 0)
          for (size_t i = 0; i < C; ++i) pg[i] += scale * gam[i];
        if (pg && t == len - 1)
          for (size_t i = 0; i < C; ++i) pg[C + i] += scale * gam[i];
      }
      if (!pg) return;
      // Edge marginals: d cost / d w[j][i] = sum_t P(s_{t-1} = j, s_t = i) - #(y_{t-1} = j, y_t = i).
      double* gw = pg + 2 * C;
      for (size_t t = 1; t < len; ++t) {
        for (size_t i = 0; i < C; ++i) v[i] = x[(r0 + t) * C + i] + be[t * C + i] - lz;
        for (size_t j = 0; j < C; ++j) {
          const double aj = al[(t - 1) * C + j];
          for (size_t i = 0; i < C; ++i) gw[j * C + i] += scale * std::exp(aj + w[j * C + i] + v[i]);
        }
        gw[yk[t - 1] * C + yk[t]] -= scale;
      }
    });
    if (!needW) return;
    float* g = param_->grad().data();
    forEach(useGpu_, P, [=] PD_HD(size_t j) {
      double s = 0;
      for (size_t k = 0; k < n; ++k) s += pgrad[k * P + j];
      g[j] += static_cast<float>(s);
    });
  }

 private:
  float coeff_ = 1;
  DenseBuffer<double> alpha_;    // [rows, C] log forward variables of the batch
  DenseBuffer<double> beta_;     // [rows, C] log backward variables
  DenseBuffer<double> scratch_;  // [#sequences, C*C + 3C] per-sequence work space
  DenseBuffer<double> logZ_;     // per sequence
  DenseBuffer<double> pgrad_;    // [#sequences, (C+2)*C] parameter gradient per sequence
  const int* startsView_ = nullptr;  // forward's sequence starts and labels, for backward
  const int* labelsView_ = nullptr;
};

// "crf_decoding": the most likely tag sequence (Viterbi; ties keep the lower tag).
class CRFDecodingLayer : public CRFLayerBase {
 public:
  using CRFLayerBase::CRFLayerBase;

  void init(LayerContext& ctx) override {
    CRFLayerBase::init(ctx);
    checkInputCount(1, 2);
    delta_.setDevice(useGpu_);
    track_.setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const int* st = sequences();
    const bool withLabel = inputs_.size() == 2;
    const int* y = withLabel ? labels(1) : nullptr;
    const size_t C = numClasses_, n = input(0).numSequences(), rows = input(0).batchSize();
    const float* x = input(0).value.data();
    const float* a = param_->value().data();
    const float* b = a + C;
    const float* w = a + 2 * C;
    output_.ids.setDevice(useGpu_);
    output_.ids.resize(1, rows);
    int* path = output_.ids.data();
    delta_.resize(rows, C);
    track_.resize(rows, C);
    double* delta = delta_.data();
    int* track = track_.data();
    forEach(useGpu_, n, [=] PD_HD(size_t k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      double* d = delta + r0 * C;
      int* tr = track + r0 * C;
      for (size_t i = 0; i < C; ++i) d[i] = static_cast<double>(a[i]) + x[r0 * C + i];
      for (size_t t = 1; t < len; ++t) {
        const double* prev = d + (t - 1) * C;
        double* cur = d + t * C;
        int* tt = tr + t * C;
        for (size_t i = 0; i < C; ++i) {
          cur[i] = prev[0] + w[i];
          tt[i] = 0;
        }
        for (size_t j = 1; j < C; ++j) {
          for (size_t i = 0; i < C; ++i) {
            const double s = prev[j] + w[j * C + i];
            if (s > cur[i]) {
              cur[i] = s;
              tt[i] = static_cast<int>(j);
            }
          }
        }
        for (size_t i = 0; i < C; ++i) cur[i] += x[(r0 + t) * C + i];
      }
      const double* last = d + (len - 1) * C;
      int best = 0;
      double bestScore = last[0] + b[0];
      for (size_t i = 1; i < C; ++i) {
        if (last[i] + b[i] > bestScore) {
          bestScore = last[i] + b[i];
          best = static_cast<int>(i);
        }
      }
      int* pk = path + r0;
      pk[len - 1] = best;
      for (size_t t = len - 1; t > 0; --t) pk[t - 1] = tr[t * C + pk[t]];
    });
    output_.shareSequenceOf(input(0));
    if (withLabel) {
      resetOutput(rows, 1);
      float* err = output_.value.data();
      forEach(useGpu_, rows, [=] PD_HD(size_t r) { err[r] = path[r] != y[r] ? 1.0f : 0.0f; });
    } else {
      output_.value.resize(0, 1);
      output_.grad.resize(0, 1);
    }
  }

  void backward() override {}  // decoding is not differentiable

 private:
  DenseBuffer<double> delta_;  // [rows, C] best partial scores
  IVector track_;              // [rows, C] best predecessor tags
};

REGISTER_LAYER("crf", CRFLayer);
REGISTER_LAYER("crf_decoding", CRFDecodingLayer);

}  // namespace paddle
