// Connectionist temporal classification costs (v1 LinearChainCTC semantics),
// CPU kernels only. Inputs [frames (sequence, size C), label ids (sequence)];
// one cost row per sequence: -log P(label | frames), summed over all
// alignments of the label (with blanks, repeated labels separated by a blank).
//   "ctc": frames are probabilities (a softmax output); blank = C - 1; the
//        gradient is taken w.r.t. the probabilities.
//   "warp_ctc": frames are unnormalised activations (a linear output); a softmax
//        is applied inside; blank is the config's `blank` (default 0); the
//        gradient is taken w.r.t. the activations (softmax - occupation).
// norm_by_times divides each sequence's cost and gradient by its frame count
// (v1 divided only the gradient; here the gradient stays that of the cost).
// A sequence too short for its label (frames < label length + repeats) costs 0
// and gets no gradient, as in v1. Alpha/beta recursions run in log space (double).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "Errors.h"
#include "Layer.h"

namespace paddle {

namespace {

const double kLogZero = -std::numeric_limits<double>::infinity();

inline double logAdd(double a, double b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

// Log-space CTC over one sequence. logp: [T, C] log-probabilities; label: L ids.
// Returns log P(label) (kLogZero when impossible); when occ is non-null, fills
// occ[T, C] with the posterior occupation sum_{s: l'(s) = k} P(path at s at t | label).
class CtcLattice {
 public:
  double run(const double* logp, size_t T, size_t C, const int* label, size_t L, int blank, double* occ) {
    const size_t S = 2 * L + 1;
    ext_.resize(S);
    for (size_t s = 0; s < S; ++s) ext_[s] = (s & 1) ? label[s / 2] : blank;
    alpha_.assign(T * S, kLogZero);
    alpha_[0] = logp[blank];
    if (S > 1) alpha_[1] = logp[ext_[1]];
    for (size_t t = 1; t < T; ++t) {
      const double* prev = &alpha_[(t - 1) * S];
      double* cur = &alpha_[t * S];
      const double* lp = logp + t * C;
      for (size_t s = 0; s < S; ++s) {
        double v = prev[s];
        if (s >= 1) v = logAdd(v, prev[s - 1]);
        if (s >= 2 && (s & 1) && ext_[s] != ext_[s - 2]) v = logAdd(v, prev[s - 2]);
        cur[s] = v == kLogZero ? kLogZero : v + lp[ext_[s]];
      }
    }
    const double* lastA = &alpha_[(T - 1) * S];
    double logP = lastA[S - 1];
    if (S > 1) logP = logAdd(logP, lastA[S - 2]);
    if (!occ || logP == kLogZero) return logP;
    // beta[t][s]: log P(frames t+1.. | at s at t), excluding frame t.
    beta_.assign(T * S, kLogZero);
    double* lastB = &beta_[(T - 1) * S];
    lastB[S - 1] = 0;
    if (S > 1) lastB[S - 2] = 0;
    for (size_t t = T - 1; t-- > 0;) {
      const double* nxt = &beta_[(t + 1) * S];
      double* cur = &beta_[t * S];
      const double* lp = logp + (t + 1) * C;
      for (size_t s = 0; s < S; ++s) {
        double v = nxt[s] == kLogZero ? kLogZero : nxt[s] + lp[ext_[s]];
        if (s + 1 < S && nxt[s + 1] != kLogZero) v = logAdd(v, nxt[s + 1] + lp[ext_[s + 1]]);
        if (s + 2 < S && (s & 1) && ext_[s + 2] != ext_[s] && nxt[s + 2] != kLogZero)
          v = logAdd(v, nxt[s + 2] + lp[ext_[s + 2]]);
        cur[s] = v;
      }
    }
    std::fill(occ, occ + T * C, 0.0);
    for (size_t t = 0; t < T; ++t) {
      const double* a = &alpha_[t * S];
      const double* b = &beta_[t * S];
      double* o = occ + t * C;
      for (size_t s = 0; s < S; ++s) {
        if (a[s] == kLogZero || b[s] == kLogZero) continue;
        o[ext_[s]] += std::exp(a[s] + b[s] - logP);
      }
    }
    return logP;
  }

 private:
  std::vector<int> ext_;
  std::vector<double> alpha_, beta_;
};

}  // namespace

class CTCLayerBase : public Layer {
 public:
  CTCLayerBase(const Json& config, bool warp) : Layer(config), warp_(warp) {}
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(2, 2);
    numClasses_ = inputs_[0]->size();
    PADDLE_ENFORCE(numClasses_ >= 2, ConfigError, "input 0 ('", inputs_[0]->name(), "') has size ", numClasses_,
                   "; ", type_, " needs at least 2 classes (labels and the blank)");
    PADDLE_ENFORCE(size_ == 0 || size_ == numClasses_, ConfigError, "size is ", size_, " but input 0 ('",
                   inputs_[0]->name(), "') has size ", numClasses_, " (the classes including the blank)");
    blank_ = warp_ ? static_cast<int>(config_.getInt("blank", 0)) : static_cast<int>(numClasses_) - 1;
    PADDLE_ENFORCE(blank_ >= 0 && static_cast<size_t>(blank_) < numClasses_, ConfigError, "blank is ", blank_,
                   ", outside [0, ", numClasses_, ")");
    normByTimes_ = config_.getBool("norm_by_times", false);
    coeff_ = static_cast<float>(config_.getDouble("coeff", 1.0));
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& x = input(0);
    const Argument& y = input(1);
    const std::string &xn = inputs_[0]->name(), &yn = inputs_[1]->name();
    PADDLE_ENFORCE(x.hasSeq(), DataError, "layer '", name_, "': input '", xn, "' is not a sequence");
    PADDLE_ENFORCE(y.hasSeq(), DataError, "layer '", name_, "': label '", yn, "' is not a sequence");
    PADDLE_ENFORCE(!y.ids.empty() || y.batchSize() == 0, DataError, "layer '", name_, "': label '", yn,
                   "' must be integer ids (integer_value_sequence)");
    PADDLE_ENFORCE(!x.value.empty() || x.batchSize() == 0, DataError, "layer '", name_, "': input '", xn,
                   "' has no dense value");
    const size_t n = x.numSequences();
    PADDLE_ENFORCE(y.numSequences() == n, DataError, "layer '", name_, "': label '", yn, "' has ",
                   y.numSequences(), " sequences but input '", xn, "' has ", n);
    const int* xs = x.seqStarts.data();
    const int* ys = y.seqStarts.data();
    const int* ids = y.ids.data();
    const size_t C = numClasses_;
    for (size_t k = 0; k < n; ++k) {
      PADDLE_ENFORCE(xs[k + 1] > xs[k], DataError, "layer '", name_, "': sequence ", k, " of input '", xn,
                     "' is empty");
      for (int r = ys[k]; r < ys[k + 1]; ++r) {
        PADDLE_ENFORCE(ids[r] >= 0 && static_cast<size_t>(ids[r]) < C && ids[r] != blank_, DataError, "layer '",
                       name_, "': sequence ", k, " label ", r - ys[k], " is ", ids[r], ", outside [0, ", C,
                       ") or the blank (", blank_, ")");
      }
    }
    resetOutput(n, 1);
    const size_t rows = x.batchSize();
    logp_.resize(rows * C);
    const float* v = x.value.data();
    if (warp_) {
      for (size_t r = 0; r < rows; ++r) {  // log-softmax per frame
        const float* xr = v + r * C;
        double* lr = logp_.data() + r * C;
        double m = xr[0];
        for (size_t j = 1; j < C; ++j) m = std::max<double>(m, xr[j]);
        double s = 0;
        for (size_t j = 0; j < C; ++j) s += std::exp(xr[j] - m);
        const double lse = m + std::log(s);
        for (size_t j = 0; j < C; ++j) lr[j] = xr[j] - lse;
      }
    } else {
      for (size_t i = 0, m = rows * C; i < m; ++i) logp_[i] = std::log(std::max<double>(v[i], DBL_MIN));
    }
    const bool train = pass == PASS_TRAIN || pass == PASS_GC;
    occ_.resize(train ? rows * C : 0);
    valid_.assign(n, 0);
    for (size_t k = 0; k < n; ++k) {
      const size_t T = xs[k + 1] - xs[k], L = ys[k + 1] - ys[k];
      const int* lab = ids + ys[k];
      size_t need = L;
      for (size_t i = 1; i < L; ++i) need += lab[i] == lab[i - 1];
      double cost = 0;
      if (T >= need) {
        double logP = lattice_.run(logp_.data() + xs[k] * C, T, C, lab, L, blank_,
                                   train ? occ_.data() + xs[k] * C : nullptr);
        if (logP != kLogZero) {
          valid_[k] = 1;
          cost = -logP;
          if (normByTimes_) cost /= T;
        }
      }
      output_.value.data()[k] = static_cast<float>(cost);
    }
  }

  void backward() override {
    Argument& x = input(0);
    if (x.grad.empty()) return;
    const size_t C = numClasses_;
    const int* xs = x.seqStarts.data();
    const float* v = x.value.data();
    for (size_t k = 0; k + 1 < x.seqStarts.size(); ++k) {
      if (!valid_[k]) continue;
      const size_t T = xs[k + 1] - xs[k];
      const double scale = normByTimes_ ? coeff_ / static_cast<double>(T) : coeff_;
      for (size_t r = xs[k]; r < static_cast<size_t>(xs[k + 1]); ++r) {
        const double* o = occ_.data() + r * C;
        float* g = x.grad.row(r);
        if (warp_) {
          const double* lp = logp_.data() + r * C;
          for (size_t j = 0; j < C; ++j) g[j] += static_cast<float>(scale * (std::exp(lp[j]) - o[j]));
        } else {
          const float* p = v + r * C;
          for (size_t j = 0; j < C; ++j) {
            if (o[j] > 0) g[j] -= static_cast<float>(scale * o[j] / std::max<double>(p[j], DBL_MIN));
          }
        }
      }
    }
  }

 private:
  bool warp_;
  size_t numClasses_ = 0;
  int blank_ = 0;
  bool normByTimes_ = false;
  float coeff_ = 1;
  CtcLattice lattice_;
  std::vector<double> logp_, occ_;
  std::vector<char> valid_;
};

class CTCLayer : public CTCLayerBase {
 public:
  explicit CTCLayer(const Json& c) : CTCLayerBase(c, false) {}
};
class WarpCTCLayer : public CTCLayerBase {
 public:
  explicit WarpCTCLayer(const Json& c) : CTCLayerBase(c, true) {}
};

REGISTER_LAYER("ctc", CTCLayer);
REGISTER_LAYER("warp_ctc", WarpCTCLayer);

}  // namespace paddle
