// Linear-chain CRF layers (v1 semantics), CPU kernels only:
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
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "Errors.h"
#include "Layer.h"

namespace paddle {

namespace {

// out[i] = log sum_j exp(v[j] + w[j*C + i]), for i < C. scratch holds C*C + C doubles.
inline void logSumExpCols(const double* v, const float* w, size_t C, double* out, double* scratch) {
  double* t = scratch;
  double* m = scratch + C * C;
  for (size_t i = 0; i < C; ++i) m[i] = -std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < C; ++j) {
    const float* wj = w + j * C;
    double* tj = t + j * C;
    for (size_t i = 0; i < C; ++i) {
      tj[i] = v[j] + wj[i];
      m[i] = std::max(m[i], tj[i]);
    }
  }
  for (size_t i = 0; i < C; ++i) out[i] = 0;
  for (size_t j = 0; j < C; ++j) {
    const double* tj = t + j * C;
    for (size_t i = 0; i < C; ++i) out[i] += std::exp(tj[i] - m[i]);
  }
  for (size_t i = 0; i < C; ++i) out[i] = m[i] + std::log(out[i]);
}

// out[j] = log sum_i exp(w[j*C + i] + v[i]), for j < C.
inline void logSumExpRows(const double* v, const float* w, size_t C, double* out, double* scratch) {
  for (size_t j = 0; j < C; ++j) {
    const float* wj = w + j * C;
    double m = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < C; ++i) {
      scratch[i] = wj[i] + v[i];
      m = std::max(m, scratch[i]);
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
    requireCpu();
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
  const float* startW() const { return param_->value().data(); }
  const float* endW() const { return param_->value().data() + numClasses_; }
  const float* transW() const { return param_->value().data() + 2 * numClasses_; }

  // Checks the emissions and returns their sequence starts (a single sequence when
  // the input has none is refused: a CRF needs sequences).
  const IVector& sequences() {
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
    return x.seqStarts;
  }

  // The label ids, checked against the emissions' rows, sequences and tag range.
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
    const int* ids = y.ids.data();
    const int* st = x.seqStarts.data();
    for (size_t k = 0; k + 1 < x.seqStarts.size(); ++k) {
      for (int r = st[k]; r < st[k + 1]; ++r) {
        PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < numClasses_, DataError, "layer '", name_,
                       "': sequence ", k, " token ", r - st[k], " has label ", ids[r], ", outside [0, ", numClasses_,
                       ")");
      }
    }
    return ids;
  }

  size_t numClasses_ = 0;
  Parameter* param_ = nullptr;
};

// "crf": negative log-likelihood of the label sequence.
class CRFLayer : public CRFLayerBase {
 public:
  using CRFLayerBase::CRFLayerBase;
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    CRFLayerBase::init(ctx);
    checkInputCount(2, 3);
    coeff_ = static_cast<float>(config_.getDouble("coeff", 1.0));
    if (inputs_.size() == 3) checkInputSize(2, 1);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const IVector& seq = sequences();
    const int* y = labels(1);
    const size_t C = numClasses_, n = seq.size() - 1, rows = input(0).batchSize();
    const int* st = seq.data();
    const float* weights = nullptr;
    if (inputs_.size() == 3) {
      const Matrix& wv = input(2).value;
      PADDLE_ENFORCE(wv.height() == n && wv.width() == 1, DataError, "layer '", name_, "': weight '",
                     inputs_[2]->name(), "' must have one row per sequence (", n, "x1), got ", shapeStr(wv));
      weights = wv.data();
    }
    resetOutput(n, 1);
    alpha_.resize(rows * C);
    logZ_.resize(n);
    scratch_.resize(C * C + C);
    const Matrix& x = input(0).value;
    const float *a = startW(), *b = endW(), *w = transW();
    for (size_t k = 0; k < n; ++k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      double* al = alpha_.data() + r0 * C;
      const float* x0 = x.row(r0);
      for (size_t i = 0; i < C; ++i) al[i] = static_cast<double>(a[i]) + x0[i];
      for (size_t t = 1; t < len; ++t) {
        double* cur = al + t * C;
        logSumExpCols(cur - C, w, C, cur, scratch_.data());
        const float* xt = x.row(r0 + t);
        for (size_t i = 0; i < C; ++i) cur[i] += xt[i];
      }
      // log Z = logsumexp_i(alpha[L-1][i] + b[i])
      const double* last = al + (len - 1) * C;
      double m = -std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < C; ++i) m = std::max(m, last[i] + b[i]);
      double s = 0;
      for (size_t i = 0; i < C; ++i) s += std::exp(last[i] + b[i] - m);
      logZ_[k] = m + std::log(s);
      // score of the labelled path
      const int* yk = y + r0;
      double score = static_cast<double>(a[yk[0]]) + b[yk[len - 1]];
      for (size_t t = 0; t < len; ++t) score += x.row(r0 + t)[yk[t]];
      for (size_t t = 1; t < len; ++t) score += w[yk[t - 1] * C + yk[t]];
      double cost = logZ_[k] - score;
      if (weights) cost *= weights[k];
      output_.value.data()[k] = static_cast<float>(cost);
    }
  }

  void backward() override {
    Argument& xa = input(0);
    const bool needX = !xa.grad.empty();
    const bool needW = !param_->isStatic() && !param_->grad().empty();
    if (!needX && !needW) return;
    const size_t C = numClasses_, n = xa.seqStarts.size() - 1;
    const int* st = xa.seqStarts.data();
    const int* y = input(1).ids.data();
    const float* weights = inputs_.size() == 3 ? input(2).value.data() : nullptr;
    const Matrix& x = xa.value;
    const float *b = endW(), *w = transW();
    size_t maxLen = 0;
    for (size_t k = 0; k < n; ++k) maxLen = std::max<size_t>(maxLen, st[k + 1] - st[k]);
    beta_.resize(maxLen * C);
    v_.resize(C);
    if (needW) {
      pgrad_.assign((C + 2) * C, 0.0);
    }
    for (size_t k = 0; k < n; ++k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      const double scale = coeff_ * (weights ? weights[k] : 1.0f);
      const double* al = alpha_.data() + r0 * C;
      const double lz = logZ_[k];
      double* be = beta_.data();
      double* lastBeta = be + (len - 1) * C;
      for (size_t i = 0; i < C; ++i) lastBeta[i] = b[i];
      for (size_t t = len - 1; t-- > 0;) {
        const float* xn = x.row(r0 + t + 1);
        const double* bn = be + (t + 1) * C;
        for (size_t i = 0; i < C; ++i) v_[i] = xn[i] + bn[i];
        logSumExpRows(v_.data(), w, C, be + t * C, scratch_.data());
      }
      const int* yk = y + r0;
      // Node marginals: d cost / d x[t][i] = P(s_t = i) - [y_t == i].
      for (size_t t = 0; t < len; ++t) {
        const double* at = al + t * C;
        const double* bt = be + t * C;
        double* gam = scratch_.data();
        for (size_t i = 0; i < C; ++i) gam[i] = std::exp(at[i] + bt[i] - lz);
        gam[yk[t]] -= 1.0;
        if (needX) {
          float* g = xa.grad.row(r0 + t);
          for (size_t i = 0; i < C; ++i) g[i] += static_cast<float>(scale * gam[i]);
        }
        if (needW && t == 0) {
          for (size_t i = 0; i < C; ++i) pgrad_[i] += scale * gam[i];
        }
        if (needW && t == len - 1) {
          for (size_t i = 0; i < C; ++i) pgrad_[C + i] += scale * gam[i];
        }
      }
      if (!needW) continue;
      // Edge marginals: d cost / d w[j][i] = sum_t P(s_{t-1} = j, s_t = i) - #(y_{t-1} = j, y_t = i).
      double* gw = pgrad_.data() + 2 * C;
      for (size_t t = 1; t < len; ++t) {
        const float* xt = x.row(r0 + t);
        const double* bt = be + t * C;
        const double* ap = al + (t - 1) * C;
        for (size_t i = 0; i < C; ++i) v_[i] = xt[i] + bt[i] - lz;
        for (size_t j = 0; j < C; ++j) {
          const float* wj = w + j * C;
          double* gj = gw + j * C;
          const double aj = ap[j];
          for (size_t i = 0; i < C; ++i) gj[i] += scale * std::exp(aj + wj[i] + v_[i]);
        }
        gw[yk[t - 1] * C + yk[t]] -= scale;
      }
    }
    if (needW) {
      float* g = param_->grad().data();
      for (size_t i = 0, m = pgrad_.size(); i < m; ++i) g[i] += static_cast<float>(pgrad_[i]);
    }
  }

 private:
  float coeff_ = 1;
  std::vector<double> alpha_;    // [rows, C] log forward variables of the batch
  std::vector<double> logZ_;     // per sequence
  std::vector<double> beta_;     // [longest sequence, C] log backward variables
  std::vector<double> scratch_;  // C*C + C
  std::vector<double> v_;        // C
  std::vector<double> pgrad_;    // (C+2)*C parameter gradient of the batch
};

// "crf_decoding": the most likely tag sequence (Viterbi; ties keep the lower tag).
class CRFDecodingLayer : public CRFLayerBase {
 public:
  using CRFLayerBase::CRFLayerBase;

  void init(LayerContext& ctx) override {
    CRFLayerBase::init(ctx);
    checkInputCount(1, 2);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const IVector& seq = sequences();
    const bool withLabel = inputs_.size() == 2;
    const int* y = withLabel ? labels(1) : nullptr;
    const size_t C = numClasses_, n = seq.size() - 1, rows = input(0).batchSize();
    const int* st = seq.data();
    const Matrix& x = input(0).value;
    const float *a = startW(), *b = endW(), *w = transW();
    output_.ids.resize(1, rows);
    int* path = output_.ids.data();
    delta_.resize(rows * C);
    track_.resize(rows * C);
    for (size_t k = 0; k < n; ++k) {
      const size_t r0 = st[k], len = st[k + 1] - st[k];
      double* d = delta_.data() + r0 * C;
      int* tr = track_.data() + r0 * C;
      for (size_t i = 0; i < C; ++i) d[i] = static_cast<double>(a[i]) + x.row(r0)[i];
      for (size_t t = 1; t < len; ++t) {
        const double* prev = d + (t - 1) * C;
        double* cur = d + t * C;
        int* tt = tr + t * C;
        for (size_t i = 0; i < C; ++i) {
          cur[i] = prev[0] + w[i];
          tt[i] = 0;
        }
        for (size_t j = 1; j < C; ++j) {
          const float* wj = w + j * C;
          const double pj = prev[j];
          for (size_t i = 0; i < C; ++i) {
            const double s = pj + wj[i];
            if (s > cur[i]) {
              cur[i] = s;
              tt[i] = static_cast<int>(j);
            }
          }
        }
        const float* xt = x.row(r0 + t);
        for (size_t i = 0; i < C; ++i) cur[i] += xt[i];
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
    }
    output_.shareSequenceOf(input(0));
    if (withLabel) {
      resetOutput(rows, 1);
      float* err = output_.value.data();
      for (size_t r = 0; r < rows; ++r) err[r] = path[r] != y[r] ? 1.0f : 0.0f;
    } else {
      output_.value.resize(0, 1);
      output_.grad.resize(0, 1);
    }
  }

  void backward() override {}  // decoding is not differentiable

 private:
  std::vector<double> delta_;  // [rows, C] best partial scores
  std::vector<int> track_;     // [rows, C] best predecessor tags
};

REGISTER_LAYER("crf", CRFLayer);
REGISTER_LAYER("crf_decoding", CRFDecodingLayer);

}  // namespace paddle
