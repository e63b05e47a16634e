// Connectionist temporal classification costs (v1 LinearChainCTC semantics).
// Inputs [frames (sequence, size C), label ids (sequence)];
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
// and gets no gradient, as in v1. Alpha/beta recursions run in log space (double),
// one kernel index per sequence (Kernel.h), on either device.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/Layer.h"

namespace paddle {

namespace {

constexpr double kLogZero = -std::numeric_limits<double>::infinity();

PD_HD inline double logAdd(double a, double b) {
  if (a == kLogZero) return b;
  if (b == kLogZero) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

// Log-space CTC over one sequence. logp: [T, C] log-probabilities; label: L ids.
// Returns log P(label) (kLogZero when impossible); when occ is non-null, fills
// occ[T, C] with the posterior occupation sum_{s: l'(s) = k} P(path at s at t | label).
// Work space: ext[2L+1], alpha and beta [T, 2L+1] each.
PD_HD inline double ctcLattice(const double* logp, size_t T, size_t C, const int* label, size_t L, int blank,
                               double* occ, int* ext, double* alpha, double* beta) {
  const size_t S = 2 * L + 1;
  for (size_t s = 0; s < S; ++s) ext[s] = (s & 1) ? label[s / 2] : blank;
  for (size_t i = 0; i < T * S; ++i) alpha[i] = kLogZero;
  alpha[0] = logp[blank];
  if (S > 1) alpha[1] = logp[ext[1]];
  for (size_t t = 1; t < T; ++t) {
    const double* prev = alpha + (t - 1) * S;
    double* cur = alpha + t * S;
    const double* lp = logp + t * C;
    for (size_t s = 0; s < S; ++s) {
      double v = prev[s];
      if (s >= 1) v = logAdd(v, prev[s - 1]);
      if (s >= 2 && (s & 1) && ext[s] != ext[s - 2]) v = logAdd(v, prev[s - 2]);
      cur[s] = v == kLogZero ? kLogZero : v + lp[ext[s]];
    }
  }
  const double* lastA = alpha + (T - 1) * S;
  double logP = lastA[S - 1];
  if (S > 1) logP = logAdd(logP, lastA[S - 2]);
  if (!occ || logP == kLogZero) return logP;
  // beta[t][s]: log P(frames t+1.. | at s at t), excluding frame t.
  for (size_t i = 0; i < T * S; ++i) beta[i] = kLogZero;
  double* lastB = beta + (T - 1) * S;
  lastB[S - 1] = 0;
  if (S > 1) lastB[S - 2] = 0;
  for (size_t t = T - 1; t-- > 0;) {
    const double* nxt = beta + (t + 1) * S;
    double* cur = beta + t * S;
    const double* lp = logp + (t + 1) * C;
    for (size_t s = 0; s < S; ++s) {
      double v = nxt[s] == kLogZero ? kLogZero : nxt[s] + lp[ext[s]];
      if (s + 1 < S && nxt[s + 1] != kLogZero) v = logAdd(v, nxt[s + 1] + lp[ext[s + 1]]);
      if (s + 2 < S && (s & 1) && ext[s + 2] != ext[s] && nxt[s + 2] != kLogZero)
        v = logAdd(v, nxt[s + 2] + lp[ext[s + 2]]);
      cur[s] = v;
    }
  }
  for (size_t i = 0; i < T * C; ++i) occ[i] = 0;
  for (size_t t = 0; t < T; ++t) {
    const double* a = alpha + t * S;
    const double* b = beta + t * S;
    double* o = occ + t * C;
    for (size_t s = 0; s < S; ++s) {
      if (a[s] == kLogZero || b[s] == kLogZero) continue;
      o[ext[s]] += std::exp(a[s] + b[s] - logP);
    }
  }
  return logP;
}

}  // namespace

class CTCLayerBase : public Layer {
 public:
  CTCLayerBase(const Json& config, bool warp) : Layer(config), warp_(warp) {}
  bool isCost() const override { return true; }

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 2);
    numClasses_ = inputs_[0]->size();
    PADDLE_ENFORCE(numClasses_ >= 2, ConfigError, "input 0 ('", inputs_[0]->name(), "') has size ", numClasses_,
                   "; ", type_, " needs at least 2 classes (labels and the blank)");
    PADDLE_ENFORCE(size_ == 0 || size_ == numClasses_, ConfigError, "size is ", size_, " but input 0 ('",
                   inputs_[0]->name(), "') has size ", numClasses_, " (the classes including the blank)");
    blank_ = warp_ ? static_cast<int>(config_.getInt("blank")) : static_cast<int>(numClasses_) - 1;
    PADDLE_ENFORCE(blank_ >= 0 && static_cast<size_t>(blank_) < numClasses_, ConfigError, "blank is ", blank_,
                   ", outside [0, ", numClasses_, ")");
    normByTimes_ = config_.getBool("norm_by_times");
    coeff_ = static_cast<float>(config_.getDouble("coeff"));
    for (auto* b : {&logp_, &occ_, &lattice_}) b->setDevice(useGpu_);
    for (auto* b : {&ext_, &valid_}) b->setDevice(useGpu_);
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
    hostIds_.resize(y.ids.size());
    y.ids.copyToHost(hostIds_.data());
    const size_t C = numClasses_;
    // Per sequence, where its lattice work space starts: [2L+1] ext ids, then 2 x [T, 2L+1].
    offsets_.resize(1, 2 * (n + 1));
    int* extOff = offsets_.data();
    int* latOff = extOff + n + 1;
    extOff[0] = latOff[0] = 0;
    for (size_t k = 0; k < n; ++k) {
      PADDLE_ENFORCE(xs[k + 1] > xs[k], DataError, "layer '", name_, "': sequence ", k, " of input '", xn,
                     "' is empty");
      for (int r = ys[k]; r < ys[k + 1]; ++r) {
        const int id = hostIds_[r];
        PADDLE_ENFORCE(id >= 0 && static_cast<size_t>(id) < C && id != blank_, DataError, "layer '", name_,
                       "': sequence ", k, " label ", r - ys[k], " is ", id, ", outside [0, ", C,
                       ") or the blank (", blank_, ")");
      }
      const int S = 2 * (ys[k + 1] - ys[k]) + 1;
      extOff[k + 1] = extOff[k] + S;
      latOff[k + 1] = latOff[k] + 2 * S * (xs[k + 1] - xs[k]);
    }
    resetOutput(n, 1);
    const size_t rows = x.batchSize();
    logp_.resize(rows, C);
    double* logp = logp_.data();
    const float* v = x.value.data();
    if (warp_) {
      forEach(useGpu_, rows, [=] PD_HD(size_t r) {  // log-softmax per frame
        const float* xr = v + r * C;
        double* lr = logp + r * C;
        double m = xr[0];
        for (size_t j = 1; j < C; ++j) m = xr[j] > m ? xr[j] : m;
        double s = 0;
        for (size_t j = 0; j < C; ++j) s += std::exp(xr[j] - m);
        const double lse = m + std::log(s);
        for (size_t j = 0; j < C; ++j) lr[j] = xr[j] - lse;
      });
    } else {
      forEach(useGpu_, rows * C, [=] PD_HD(size_t i) { logp[i] = std::log(v[i] > DBL_MIN ? v[i] : DBL_MIN); });
    }
    const bool train = pass == PASS_TRAIN || pass == PASS_GC;
    occ_.resize(train ? rows : 0, C);
    ext_.resize(1, extOff[n]);
    lattice_.resize(1, latOff[n]);
    valid_.resize(1, n);
    const int* off = kernelView(offsets_, offsetsDev_, useGpu_);
    xs = kernelView(x.seqStarts, xStarts_, useGpu_);
    ys = kernelView(y.seqStarts, yStarts_, useGpu_);
    const int* ids = kernelView(y.ids, idsDev_, useGpu_);
    double* occ = train ? occ_.data() : nullptr;
    int* ext = ext_.data();
    double* lat = lattice_.data();
    int* valid = valid_.data();
    float* cost = output_.value.data();
    const int blank = blank_;
    const bool norm = normByTimes_;
    forEach(useGpu_, n, [=] PD_HD(size_t k) {
      const size_t T = xs[k + 1] - xs[k], L = ys[k + 1] - ys[k];
      const int* lab = ids + ys[k];
      size_t need = L;  // frames a label needs: one each, plus a blank between repeats
      for (size_t i = 1; i < L; ++i) need += lab[i] == lab[i - 1];
      double c = 0;
      valid[k] = 0;
      if (T >= need) {
        const size_t S = 2 * L + 1;
        double* alpha = lat + off[n + 1 + k];
        double logP = ctcLattice(logp + xs[k] * C, T, C, lab, L, blank, occ ? occ + xs[k] * C : nullptr,
                                 ext + off[k], alpha, alpha + T * S);
        if (logP != kLogZero) {
          valid[k] = 1;
          c = norm ? -logP / T : -logP;
        }
      }
      cost[k] = static_cast<float>(c);
    });
  }

  void backward() override {
    Argument& x = input(0);
    if (x.grad.empty()) return;
    const size_t C = numClasses_;
    const int* xs = kernelView(x.seqStarts, xStarts_, useGpu_);
    const float* v = x.value.data();
    const double* logp = logp_.data();
    const double* occ = occ_.data();
    const int* valid = valid_.data();
    float* grad = x.grad.data();
    const bool warp = warp_, norm = normByTimes_;
    const float coeff = coeff_ * NetworkPrecisionScope::lossScale();
    forEach(useGpu_, x.numSequences(), [=] PD_HD(size_t k) {
      if (!valid[k]) return;
      const size_t T = xs[k + 1] - xs[k];
      const double scale = norm ? coeff / static_cast<double>(T) : coeff;
      for (size_t i = xs[k] * C; i < xs[k + 1] * C; ++i) {
        if (warp) {
          grad[i] += static_cast<float>(scale * (std::exp(logp[i]) - occ[i]));
        } else if (occ[i] > 0) {
          grad[i] -= static_cast<float>(scale * occ[i] / (v[i] > DBL_MIN ? v[i] : DBL_MIN));
        }
      }
    });
  }

 private:
  bool warp_;
  size_t numClasses_ = 0;
  int blank_ = 0;
  bool normByTimes_ = false;
  float coeff_ = 1;
  DenseBuffer<double> logp_, occ_;  // [rows, C]
  DenseBuffer<double> lattice_;     // every sequence's alpha and beta
  IVector ext_, valid_;             // labels with blanks; per sequence: 1 when its cost is finite
  IVector offsets_;                 // host: ext and lattice offsets per sequence
  IVector offsetsDev_, xStarts_, yStarts_, idsDev_;
  std::vector<int> hostIds_;
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
