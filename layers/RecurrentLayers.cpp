// Recurrent layers over variable-length sequences without padding:
// "lstmemory" (LSTM with peepholes), "gated_recurrent" (GRU) and "recurrent"
// (simple RNN). Each reorders its input into time-major batches
// (SequenceToBatch), runs one GEMM per time step on the rows still active, and
// fuses the gate math of a step into kernels over rows x units (CPU loops or
// CUDA grids, layers/math/Kernel.h). Their input is already the projected x
// (4H / 3H / H wide); the recurrent weights are theirs.
#include <algorithm>
#include <initializer_list>

#include "Errors.h"
#include "Layer.h"
#include "SequenceToBatch.h"
#include "math/Kernel.h"
#include "math/MathOps.h"

namespace paddle {

namespace {
// A [rows, cols] view of raw parameter memory (recurrent weights have 3-D dims).
Matrix view(Matrix& m, size_t offset, size_t rows, size_t cols) {
  return Matrix::view(m.data() + offset, rows, cols, m.useGpu());
}

// An element-wise activation chosen at run time, with the interface of the act::
// functors (elementwiseKind admits only kinds whose derivative is a function of y).
struct AnyAct {
  act::Kind kind;
  PD_HD float fwd(float x) const {
    float y = x;
    act::visit(kind, [&](auto f) { y = f.fwd(x); });
    return y;
  }
  PD_HD float bwd(float y, float) const {
    float d = 1.0f;
    act::visit(kind, [&](auto f) { d = f.bwd(y, 0.0f); });
    return d;
  }
};

// Calls f with the cell activations as functors: their own types for v1's usual
// tanh / sigmoid (/ tanh state) combination, so that the CPU loops inline them,
// AnyAct (a switch per value) for any other.
template <typename F>
void withActs(act::Kind a, act::Kind g, F&& f) {
  if (a == act::kTanh && g == act::kSigmoid) {
    f(act::Tanh{}, act::Sigmoid{});
  } else {
    f(AnyAct{a}, AnyAct{g});
  }
}
template <typename F>
void withActs(act::Kind a, act::Kind g, act::Kind s, F&& f) {
  if (a == act::kTanh && g == act::kSigmoid && s == act::kTanh) {
    f(act::Tanh{}, act::Sigmoid{}, act::Tanh{});
  } else {
    f(AnyAct{a}, AnyAct{g}, AnyAct{s});
  }
}

// Units per CPU chunk of the cell kernels (several activations per unit: a smaller
// grain than a plain element-wise loop's).
constexpr size_t kCellGrain = 2048;

// The kernels of the cells below, one index per (row, unit); the CPU splits the rows
// (the batch's sequences) across the thread pool. Their pointers are
// never null (absent states and peepholes read zeros) and never overlap, which
// __restrict tells the CPU compiler so that it vectorizes the loops; they stay
// out of line because GCC forgets __restrict when it inlines a function.

// LSTM forward (see LstmCell::forward), in two passes: the gates that do not
// depend on the new cell, then the output gate and the state. (In one pass the
// chain of activations per unit is long enough to keep the CPU from overlapping
// consecutive units: 1.45x slower.)
template <typename A, typename G, typename S>
[[gnu::noinline]] void lstmForward(A fa, G fg, S fs, bool gpu, size_t rows, size_t n, float* __restrict gates,
                                   const float* __restrict prevCell, const float* __restrict peep,
                                   float* __restrict cell, float* __restrict stateAct, float* __restrict hidden) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const size_t u = i * n + j;
    const float cp = prevCell[u];
    const float a = fa.fwd(g[j]);
    const float in = fg.fwd(g[n + j] + cp * peep[j]);
    const float f = fg.fwd(g[2 * n + j] + cp * peep[n + j]);
    g[j] = a;
    g[n + j] = in;
    g[2 * n + j] = f;
    cell[u] = a * in + cp * f;
  }, kCellGrain);
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* g = gates + i * 4 * n;
    const size_t u = i * n + j;
    const float c = cell[u];
    const float o = fg.fwd(g[3 * n + j] + c * peep[2 * n + j]);
    const float s = fs.fwd(c);
    g[3 * n + j] = o;
    stateAct[u] = s;
    hidden[u] = o * s;
  }, kCellGrain);
}

// LSTM backward (see LstmCell::backward).
template <typename A, typename G, typename S>
[[gnu::noinline]] void lstmBackward(A fa, G fg, S fs, bool gpu, size_t rows, size_t n,
                                    const float* __restrict gates, const float* __restrict prevCell,
                                    const float* __restrict cell, const float* __restrict stateAct,
                                    const float* __restrict hiddenGrad, float* __restrict cellGrad,
                                    float* __restrict gateGrad, float* __restrict prevCellGrad,
                                    const float* __restrict peep, float* __restrict peepGrad) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const float* g = gates + i * 4 * n;
    float* dg = gateGrad + i * 4 * n;
    const size_t u = i * n + j;
    const float cp = prevCell[u];
    const float a = g[j], in = g[n + j], f = g[2 * n + j], o = g[3 * n + j];
    const float s = stateAct[u], dh = hiddenGrad[u];
    const float dO = dh * s * fg.bwd(o, 0.0f);
    const float dS = dh * o * fs.bwd(s, 0.0f);
    const float dc = cellGrad[u] + (dS + dO * peep[2 * n + j]);
    cellGrad[u] = dc;
    const float dI = dc * a * fg.bwd(in, 0.0f);
    const float dF = dc * cp * fg.bwd(f, 0.0f);
    dg[j] = dc * in * fa.bwd(a, 0.0f);
    dg[n + j] = dI;
    dg[2 * n + j] = dF;
    dg[3 * n + j] = dO;
    prevCellGrad[u] += dc * f + dI * peep[j] + dF * peep[n + j];
  }, kCellGrain);
  // The peephole grads, shared by all rows: one index per unit sums its rows in order.
  forEachParallel(gpu, n, [=] PD_HD(size_t j) {
    float pi = peepGrad[j], pf = peepGrad[n + j], po = peepGrad[2 * n + j];
    for (size_t i = 0; i < rows; ++i) {
      const float* dg = gateGrad + i * 4 * n;
      const size_t u = i * n + j;
      pi += dg[n + j] * prevCell[u];
      pf += dg[2 * n + j] * prevCell[u];
      po += dg[3 * n + j] * cell[u];
    }
    peepGrad[j] = pi;
    peepGrad[n + j] = pf;
    peepGrad[2 * n + j] = po;
  }, kCellGrain / (rows + 1) + 1);
}

// GRU gates (see GruStep::forward): z and r, the two halves of the rows of zr
// (2n wide), activated in place; resetPrev = r . prev.
template <typename G>
[[gnu::noinline]] void gruGates(G fg, bool gpu, size_t rows, size_t n, float* __restrict zr,
                                const float* __restrict prev, float* __restrict resetPrev) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* z = zr + i * 2 * n;
    z[j] = fg.fwd(z[j]);
    const float r = fg.fwd(z[n + j]);
    z[n + j] = r;
    resetPrev[i * n + j] = r * prev[i * n + j];
  }, kCellGrain);
}

// GRU output: the candidate activated in place, h = (1 - z) prev + z cand.
template <typename A>
[[gnu::noinline]] void gruOutput(A fa, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                 const float* __restrict prev, float* __restrict cand, float* __restrict hidden) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float c = fa.fwd(cand[u]);
    const float z = zr[i * 2 * n + j];
    cand[u] = c;
    hidden[u] = (1 - z) * prev[u] + z * c;
  }, kCellGrain);
}

// The z half of dzr and dcand from the gradient of h.
template <typename A, typename G>
[[gnu::noinline]] void gruOutputBackward(A fa, G fg, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                         const float* __restrict cand, const float* __restrict prev,
                                         const float* __restrict hiddenGrad, float* __restrict dzr,
                                         float* __restrict dcand) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float z = zr[i * 2 * n + j], dh = hiddenGrad[u];
    dzr[i * 2 * n + j] = dh * (cand[u] - prev[u]) * fg.bwd(z, 0.0f);
    dcand[u] = dh * z * fa.bwd(cand[u], 0.0f);
  }, kCellGrain);
}

// The r half of dzr from drh = dcand Uc^T; adds the direct terms into prevGrad.
template <typename G>
[[gnu::noinline]] void gruResetBackward(G fg, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                        const float* __restrict prev, const float* __restrict hiddenGrad,
                                        const float* __restrict drh, float* __restrict dzr,
                                        float* __restrict prevGrad) {
  forEach2Parallel(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float r = zr[i * 2 * n + n + j];
    dzr[i * 2 * n + n + j] = drh[u] * prev[u] * fg.bwd(r, 0.0f);
    prevGrad[u] += drh[u] * r + hiddenGrad[u] * (1 - zr[i * 2 * n + j]);
  }, kCellGrain);
}

// y = f(y) and g *= f'(y) over n values, for the simple recurrent layer.
template <typename F>
void activateValues(F f, bool gpu, float* y, size_t n) {
  forEachParallel(gpu, n, [=] PD_HD(size_t i) { y[i] = f.fwd(y[i]); });
}
template <typename F>
void multiplyDerivativeValues(F f, bool gpu, const float* __restrict y, float* __restrict g, size_t n) {
  forEachParallel(gpu, n, [=] PD_HD(size_t i) { g[i] *= f.bwd(y[i], 0.0f); });
}

// Zeros to read, and a place to write and forget, standing in for an absent
// previous state or peephole (kept across batches, on the layer's device).
class Placeholders {
 public:
  void setDevice(bool gpu) {
    zeros_.setDevice(gpu);
    sink_.setDevice(gpu);
  }
  // n zeros; valid until a call for more
  const float* zeros(size_t n) {
    if (zeros_.size() < n) {
      zeros_.resize(1, n);
      zeros_.zero();
    }
    return zeros_.data();
  }
  // n zeros that the caller may add into
  float* sink(size_t n) {
    sink_.resize(1, n);
    sink_.zero();
    return sink_.data();
  }

 private:
  Matrix zeros_, sink_;
};

// The LSTM cell (v1 gate order: candidate, input, forget, output gate) over
// rows x H units on the layer's device. Row i of `gates` holds its 4H
// pre-activations, activated in place; prevCell is the previous cell (null:
// zeros, at the first step); writes the cell c, stateAct = state_act(c) and
// hidden. peep: the 3H peepholes I, F, O (null: none).
class LstmCell {
 public:
  LstmCell() = default;
  LstmCell(act::Kind act, act::Kind gate, act::Kind state, size_t H, bool gpu)
      : act_(act), gate_(gate), state_(state), H_(H), gpu_(gpu) {
    placeholders_.setDevice(gpu);
  }

  void forward(size_t rows, float* gates, const float* prevCell, const float* peep, float* cell, float* stateAct,
               float* hidden) {
    zerosForAbsent(rows, prevCell, peep);
    withActs(act_, gate_, state_, [&](auto fa, auto fg, auto fs) {
      lstmForward(fa, fg, fs, gpu_, rows, H_, gates, prevCell, peep, cell, stateAct, hidden);
    });
  }

  // hiddenGrad: gradient of h; cellGrad: gradient of c so far (from later steps),
  // completed here. Writes gateGrad (4H pre-activation grads per row), adds into
  // prevCellGrad and the peephole grads peepGrad (3H) unless they are null.
  void backward(size_t rows, const float* gates, const float* prevCell, const float* cell, const float* stateAct,
                const float* hiddenGrad, float* cellGrad, float* gateGrad, float* prevCellGrad, const float* peep,
                float* peepGrad) {
    zerosForAbsent(rows, prevCell, peep);
    if (!prevCellGrad || !peepGrad) {
      float* sink = placeholders_.sink((prevCellGrad ? 0 : rows * H_) + (peepGrad ? 0 : 3 * H_));
      if (!prevCellGrad) {
        prevCellGrad = sink;
        sink += rows * H_;
      }
      if (!peepGrad) peepGrad = sink;
    }
    withActs(act_, gate_, state_, [&](auto fa, auto fg, auto fs) {
      lstmBackward(fa, fg, fs, gpu_, rows, H_, gates, prevCell, cell, stateAct, hiddenGrad, cellGrad, gateGrad,
                   prevCellGrad, peep, peepGrad);
    });
  }

 private:
  // One buffer of zeros for an absent previous cell and absent peepholes.
  void zerosForAbsent(size_t rows, const float*& prevCell, const float*& peep) {
    const float* zeros = placeholders_.zeros(std::max<size_t>(rows, 3) * H_);
    if (!prevCell) prevCell = zeros;
    if (!peep) peep = zeros;
  }

  act::Kind act_ = act::kTanh, gate_ = act::kSigmoid, state_ = act::kTanh;
  size_t H_ = 0;
  bool gpu_ = false;
  Placeholders placeholders_;
};

// One GRU step over r rows: zr [r, 2H] and cand [r, H] hold the input parts
// (plus bias) and are activated in place; hp is the previous state (null at the
// first step). Ug [H, 2H] and Uc [H, H] are the recurrent weights. Runs on the
// layer's device.
class GruStep {
 public:
  GruStep() = default;
  GruStep(act::Kind act, act::Kind gate, size_t H, bool gpu) : act_(act), gate_(gate), H_(H), gpu_(gpu) {
    placeholders_.setDevice(gpu);
  }

  void forward(Matrix& zr, Matrix& cand, const Matrix* hp, const Matrix& Ug, const Matrix& Uc, Matrix& rh,
               Matrix& h) {
    const size_t r = zr.height();
    const float* prev = hp ? hp->data() : placeholders_.zeros(r * H_);
    if (hp) math::gemm(*hp, false, Ug, false, zr, 1.0f, 1.0f);
    withActs(act_, gate_, [&](auto fa, auto fg) {
      gruGates(fg, gpu_, r, H_, zr.data(), prev, rh.data());
      if (hp) math::gemm(rh, false, Uc, false, cand, 1.0f, 1.0f);
      gruOutput(fa, gpu_, r, H_, zr.data(), prev, cand.data(), h.data());
    });
  }

  // dh: gradient of h (r rows). Writes dzr, dcand (pre-activation grads); adds
  // into dhp (if hp) and into the weight grads dUg / dUc (if not null).
  void backward(const Matrix& zr, const Matrix& cand, const Matrix* hp, const Matrix& Ug, const Matrix& Uc,
                const Matrix& rh, const Matrix& dh, Matrix& dzr, Matrix& dcand, Matrix& drh, Matrix* dhp,
                Matrix* dUg, Matrix* dUc) {
    const size_t r = zr.height();
    if (!hp) dzr.zero();  // r saw a zero state
    const float* prev = hp ? hp->data() : placeholders_.zeros(r * H_);
    withActs(act_, gate_, [&](auto fa, auto fg) {
      gruOutputBackward(fa, fg, gpu_, r, H_, zr.data(), cand.data(), prev, dh.data(), dzr.data(), dcand.data());
      if (!hp) return;
      math::gemm(dcand, false, Uc, true, drh, 1.0f, 0.0f);
      gruResetBackward(fg, gpu_, r, H_, zr.data(), prev, dh.data(), drh.data(), dzr.data(), dhp->data());
    });
    if (!hp) return;
    math::gemm(dzr, false, Ug, true, *dhp, 1.0f, 1.0f);
    if (dUg) math::gemm(*hp, true, dzr, false, *dUg, 1.0f, 1.0f);
    if (dUc) math::gemm(rh, true, dcand, false, *dUc, 1.0f, 1.0f);
  }

 private:
  act::Kind act_ = act::kTanh, gate_ = act::kSigmoid;
  size_t H_ = 0;
  bool gpu_ = false;
  Placeholders placeholders_;
};

// [rows, 3H] gate input -> (z, r) [rows, 2H] and candidate [rows, H], so the
// GEMMs of a GRU step see contiguous blocks; joinGates is the inverse. The
// outputs move to the device of the input.
void splitGates(const Matrix& in, Matrix& zr, Matrix& cand, size_t H) {
  const bool gpu = in.useGpu();
  const size_t rows = in.height();
  zr.setDevice(gpu);
  cand.setDevice(gpu);
  zr.resize(rows, 2 * H);
  cand.resize(rows, H);
  const float* s = in.data();
  float* z = zr.data();
  float* c = cand.data();
  forEach2Parallel(gpu, rows, 2 * H, [=] PD_HD(size_t b, size_t j) { z[b * 2 * H + j] = s[b * 3 * H + j]; });
  forEach2Parallel(gpu, rows, H, [=] PD_HD(size_t b, size_t j) { c[b * H + j] = s[b * 3 * H + 2 * H + j]; });
}

void joinGates(const Matrix& zr, const Matrix& cand, Matrix& out, size_t H) {
  const bool gpu = zr.useGpu();
  const size_t rows = zr.height();
  out.setDevice(gpu);
  out.resize(rows, 3 * H);
  const float* z = zr.data();
  const float* c = cand.data();
  float* o = out.data();
  forEach2Parallel(gpu, rows, 2 * H, [=] PD_HD(size_t b, size_t j) { o[b * 3 * H + j] = z[b * 2 * H + j]; });
  forEach2Parallel(gpu, rows, H, [=] PD_HD(size_t b, size_t j) { o[b * 3 * H + 2 * H + j] = c[b * H + j]; });
}
}  // namespace

// Shared plumbing: sequence <-> batch order, the weight, the bias, dropout.
class BatchRecurrentLayer : public Layer {
 public:
  using Layer::Layer;

 protected:
  void initRecurrent(LayerContext& ctx, size_t inputWidth, size_t weightSize, size_t biasSize) {
    Layer::init(ctx);
    checkInputCount(1, 1);
    PADDLE_ENFORCE(size_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, inputWidth);
    PADDLE_ENFORCE(weight(0), ConfigError, "needs a recurrent weight parameter");
    PADDLE_ENFORCE(weight(0)->size() == weightSize, ConfigError, "recurrent weight '", weight(0)->name(),
                   "' has ", weight(0)->size(), " values, expected ", weightSize);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == biasSize, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", biasSize);
    }
    reversed_ = config_.getBool("reversed");
    actKind_ = elementwiseKind(config_.getString("active_type"), "active_type");
    // The activation runs inside the cell; the base class only applies dropout.
    activation_.reset(new Activation(""));
  }
  // Puts the layer's batch-order buffers on its device.
  void onDevice(std::initializer_list<Matrix*> buffers) {
    for (Matrix* m : buffers) m->setDevice(useGpu_);
  }

  // Builds the schedule and reorders input 0 into batch order in `dst`, adding
  // the first dst.width() values of the bias (if any) to every row.
  void startForward(PassType pass, Matrix& dst) {
    pass_ = pass;
    const Argument& in = input(0);
    batch_.build(in.seqStarts, in.value.height(), reversed_);
    Matrix bias = bias_ ? view(bias_->value(), 0, 1, in.value.width()) : Matrix();
    batch_.toBatch(in.value, dst, bias_ ? &bias : nullptr);
  }
  // Writes batch-order hidden states to the output in sequence order.
  void finishForward(const Matrix& hidden) {
    resetOutput(hidden.height(), size_);
    batch_.toSequence(hidden, output_.value, false);
    output_.seqStarts = input(0).seqStarts;
    output_.subSeqStarts = input(0).subSeqStarts;
    forwardActivation();  // dropout
  }
  // Output gradient (after dropout) in batch order.
  void startBackward(Matrix& hiddenGrad) {
    backwardActivation();
    batch_.toBatch(output_.grad, hiddenGrad);
  }
  size_t prevBegin(size_t t) const { return batch_.stepBegin(t - 1); }
  bool weightTrainable() const { return !weight(0)->isStatic(); }
  bool biasTrainable() const { return bias_ && !bias_->isStatic(); }
  Parameter* weight(size_t i) const { return weights_[i]; }

  SequenceToBatch batch_;
  bool reversed_ = false;
  act::Kind actKind_ = act::kTanh;
};

// "lstmemory": input [T, 4H] = (candidate, input gate, forget gate, output gate)
// pre-activations; weight [H, 4H]; bias 7H = 4H gate bias + peepholes I, F, O.
class LstmLayer : public BatchRecurrentLayer {
 public:
  using BatchRecurrentLayer::BatchRecurrentLayer;

  void init(LayerContext& ctx) override {
    H_ = static_cast<size_t>(config_.getInt("size"));
    initRecurrent(ctx, 4 * H_, 4 * H_ * H_, 7 * H_);
    cell_ = LstmCell(actKind_, elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"),
                     elementwiseKind(config_.getString("active_state_type"), "active_state_type"), H_,
                     useGpu_);
    onDevice({&cells_, &states_, &hidden_, &cellGrad_, &gateGrad_, &prevHidden_});
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    startForward(pass, gates_);
    const size_t T = gates_.height();
    cells_.resize(T, H);
    states_.resize(T, H);
    hidden_.resize(T, H);
    Matrix W = view(weight(0)->value(), 0, H, 4 * H);
    const float* peep = bias_ ? bias_->value().data() + 4 * H : nullptr;
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      if (t > 0) {
        Matrix g = gates_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(prevBegin(t), prevBegin(t) + r), false, W, false, g, 1.0f, 1.0f);
      }
      cell_.forward(r, gates_.row(b0), t > 0 ? cells_.row(prevBegin(t)) : nullptr, peep, cells_.row(b0),
                    states_.row(b0), hidden_.row(b0));
    }
    finishForward(hidden_);
  }

  void backward() override {
    const size_t H = H_;
    startBackward(hiddenGrad_);
    const size_t T = gates_.height();
    gateGrad_.resize(T, 4 * H);
    cellGrad_.resize(T, H);
    cellGrad_.zero();
    Matrix W = view(weight(0)->value(), 0, H, 4 * H);
    const float* peep = bias_ ? bias_->value().data() + 4 * H : nullptr;
    float* peepGrad = biasTrainable() ? bias_->grad().data() + 4 * H : nullptr;
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      cell_.backward(r, gates_.row(b0), t > 0 ? cells_.row(prevBegin(t)) : nullptr, cells_.row(b0),
                     states_.row(b0), hiddenGrad_.row(b0), cellGrad_.row(b0), gateGrad_.row(b0),
                     t > 0 ? cellGrad_.row(prevBegin(t)) : nullptr, peep, peepGrad);
      if (t > 0) {
        const size_t p0 = prevBegin(t);
        Matrix dgt = gateGrad_.rows(b0, b0 + r);
        Matrix dhPrev = hiddenGrad_.rows(p0, p0 + r);
        math::gemm(dgt, false, W, true, dhPrev, 1.0f, 1.0f);
      }
    }
    if (weightTrainable() && batch_.numSteps() > 1) weightGradient();
    if (biasTrainable()) {
      Matrix db = view(bias_->grad(), 0, 1, 4 * H);
      math::sumRows(gateGrad_, db);
    }
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(gateGrad_, in.grad, true);
  }

 private:
  // dW += sum over steps t > 0 of h_{t-1}^T dg_t, as one GEMM over every step's rows (one
  // product with a long inner side instead of a small one per step): the previous hidden
  // rows are lined up with the gate-gradient rows of their step first.
  void weightGradient() {
    const size_t H = H_, first = batch_.stepBegin(1), T = gates_.height();
    prevHidden_.resize(T - first, H);
    for (size_t t = 1; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t), p0 = prevBegin(t);
      Matrix dst = prevHidden_.rows(b0 - first, b0 - first + r);
      math::addColumns(dst, 0, hidden_.rows(p0, p0 + r), 0, H, 0.0f);
    }
    Matrix dW = view(weight(0)->grad(), 0, H, 4 * H);
    math::gemm(prevHidden_, true, gateGrad_.rows(first, T), false, dW, 1.0f, 1.0f);
  }

  size_t H_ = 0;
  LstmCell cell_;
  Matrix gates_, cells_, states_, hidden_;  // batch order
  Matrix hiddenGrad_, cellGrad_, gateGrad_, prevHidden_;
};

// "gated_recurrent": input [T, 3H] = (update z, reset r, candidate) pre-activations;
// weight: [H, 2H] gate block (U_z | U_r) then [H, H] candidate block; bias 3H.
//   z = gate(x_z + h U_z), r = gate(x_r + h U_r), c = act(x_c + (r . h) U), h' = (1-z) h + z c
class GruLayer : public BatchRecurrentLayer {
 public:
  using BatchRecurrentLayer::BatchRecurrentLayer;

  void init(LayerContext& ctx) override {
    H_ = static_cast<size_t>(config_.getInt("size"));
    initRecurrent(ctx, 3 * H_, 3 * H_ * H_, 3 * H_);
    step_ = GruStep(actKind_, elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"), H_,
                    useGpu_);
    onDevice({&resetH_, &hidden_, &zrGrad_, &candGrad_, &rhGrad_});
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    startForward(pass, input_);
    const size_t T = input_.height();
    splitGates(input_, zr_, cand_, H);
    resetH_.resize(T, H);
    hidden_.resize(T, H);
    Matrix Ug = view(weight(0)->value(), 0, H, 2 * H);
    Matrix Uc = view(weight(0)->value(), 2 * H * H, H, H);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), b1 = batch_.stepEnd(t);
      Matrix zr = zr_.rows(b0, b1), cand = cand_.rows(b0, b1), rh = resetH_.rows(b0, b1), h = hidden_.rows(b0, b1);
      Matrix hp = t > 0 ? hidden_.rows(prevBegin(t), prevBegin(t) + (b1 - b0)) : Matrix();
      step_.forward(zr, cand, t > 0 ? &hp : nullptr, Ug, Uc, rh, h);
    }
    finishForward(hidden_);
  }

  void backward() override {
    const size_t H = H_;
    startBackward(hiddenGrad_);
    const size_t T = hidden_.height();
    zrGrad_.resize(T, 2 * H);
    candGrad_.resize(T, H);
    rhGrad_.resize(T, H);
    Matrix Ug = view(weight(0)->value(), 0, H, 2 * H);
    Matrix Uc = view(weight(0)->value(), 2 * H * H, H, H);
    Matrix dUg = view(weight(0)->grad(), 0, H, 2 * H);
    Matrix dUc = view(weight(0)->grad(), 2 * H * H, H, H);
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), b1 = batch_.stepEnd(t), r = b1 - b0;
      Matrix hp = t > 0 ? hidden_.rows(prevBegin(t), prevBegin(t) + r) : Matrix();
      Matrix dhp = t > 0 ? hiddenGrad_.rows(prevBegin(t), prevBegin(t) + r) : Matrix();
      Matrix dzr = zrGrad_.rows(b0, b1), dc = candGrad_.rows(b0, b1), drh = rhGrad_.rows(b0, b1);
      step_.backward(zr_.rows(b0, b1), cand_.rows(b0, b1), t > 0 ? &hp : nullptr, Ug, Uc, resetH_.rows(b0, b1),
                     hiddenGrad_.rows(b0, b1), dzr, dc, drh, t > 0 ? &dhp : nullptr,
                     weightTrainable() ? &dUg : nullptr, weightTrainable() ? &dUc : nullptr);
    }
    joinGates(zrGrad_, candGrad_, inputGrad_, H);
    if (biasTrainable()) math::sumRows(inputGrad_, bias_->grad());
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(inputGrad_, in.grad, true);
  }

 private:
  size_t H_ = 0;
  GruStep step_;
  Matrix input_, zr_, cand_, resetH_, hidden_;  // batch order
  Matrix hiddenGrad_, zrGrad_, candGrad_, rhGrad_, inputGrad_;
};

// "recurrent": h_t = act(x_t + h_{t-1} W + b), W [H, H].
class SimpleRecurrentLayer : public BatchRecurrentLayer {
 public:
  using BatchRecurrentLayer::BatchRecurrentLayer;

  void init(LayerContext& ctx) override { initRecurrent(ctx, size_, size_ * size_, size_); }

  void forward(PassType pass) override {
    startForward(pass, hidden_);
    Matrix W = view(weight(0)->value(), 0, size_, size_);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      if (t > 0) {
        Matrix h = hidden_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(prevBegin(t), prevBegin(t) + r), false, W, false, h, 1.0f, 1.0f);
      }
      act::visit(actKind_, [&](auto f) { activateValues(f, useGpu_, hidden_.row(b0), r * size_); });
    }
    finishForward(hidden_);
  }

  void backward() override {
    startBackward(grad_);
    Matrix W = view(weight(0)->value(), 0, size_, size_);
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      act::visit(actKind_,
                 [&](auto f) { multiplyDerivativeValues(f, useGpu_, hidden_.row(b0), grad_.row(b0), r * size_); });
      if (t > 0) {
        const size_t p0 = prevBegin(t);
        Matrix d = grad_.rows(b0, b0 + r);
        Matrix dPrev = grad_.rows(p0, p0 + r);
        math::gemm(d, false, W, true, dPrev, 1.0f, 1.0f);
        if (weightTrainable()) {
          Matrix dW = view(weight(0)->grad(), 0, size_, size_);
          math::gemm(hidden_.rows(p0, p0 + r), true, d, false, dW, 1.0f, 1.0f);
        }
      }
    }
    if (biasTrainable()) math::sumRows(grad_, bias_->grad());
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(grad_, in.grad, true);
  }

 private:
  Matrix hidden_, grad_;  // batch order
};

// "lstm_step": one LSTM step inside a recurrent_group. Inputs: the 4H gate
// pre-activations (x and h_{t-1} projections summed by a mixed layer) and the
// previous cell; bias = the 3H peepholes. Output h; secondary output "state" = c.
class LstmStepLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 2);
    H_ = size_;
    PADDLE_ENFORCE(H_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, 4 * H_);
    checkInputSize(1, H_);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == 3 * H_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", 3 * H_, " (peepholes)");
    }
    cell_ = LstmCell(elementwiseKind(config_.getString("active_type"), "active_type"),
                     elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"),
                     elementwiseKind(config_.getString("active_state_type"), "active_state_type"), H_,
                     useGpu_);
    activation_.reset(new Activation(""));  // applied inside the cell
    for (Matrix* m : {&gates_, &states_, &gateGrad_, &state_.value, &state_.grad}) m->setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.value.height();
    PADDLE_ENFORCE(input(1).value.height() == rows, DataError, "state input '", inputLayers()[1]->name(), "' has ",
                   input(1).value.height(), " rows, expected ", rows);
    gates_.copyFrom(in.value);
    resetOutput(rows, H_);
    state_.value.resize(rows, H_);
    states_.resize(rows, H_);
    if (pass == PASS_TRAIN || pass == PASS_GC) {
      state_.grad.resize(rows, H_);
      state_.grad.zero();
    }
    cell_.forward(rows, gates_.data(), input(1).value.data(), peepholes(), state_.value.data(),
                  states_.data(), output_.value.data());
    output_.seqStarts = state_.seqStarts = in.seqStarts;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const size_t rows = gates_.height();
    gateGrad_.resize(rows, 4 * H_);
    Argument& prev = input(1);
    float* peepGrad = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    cell_.backward(rows, gates_.data(), prev.value.data(), state_.value.data(), states_.data(),
                   output_.grad.data(), state_.grad.data(), gateGrad_.data(),
                   prev.grad.empty() ? nullptr : prev.grad.data(), peepholes(), peepGrad);
    Argument& in = input(0);
    if (!in.grad.empty()) math::axpby(1.0f, gateGrad_, 1.0f, in.grad);
  }

 private:
  const float* peepholes() const { return bias_ ? bias_->value().data() : nullptr; }
  size_t H_ = 0;
  LstmCell cell_;
  Argument& state_ = publishOutput("state");  // the cell c
  Matrix gates_, states_, gateGrad_;
};

// "gru_step": one GRU step inside a recurrent_group. Inputs: the 3H gate inputs
// (with the recurrent weight [H, 3H] as its parameter) and h_{t-1}; bias 3H.
class GruStepLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 2);
    H_ = size_;
    PADDLE_ENFORCE(H_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, 3 * H_);
    checkInputSize(1, H_);
    PADDLE_ENFORCE(weight(0) && weight(0)->size() == 3 * H_ * H_, ConfigError,
                   "input 0 needs the recurrent weight of ", 3 * H_ * H_, " values");
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == 3 * H_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", 3 * H_);
    }
    step_ = GruStep(elementwiseKind(config_.getString("active_type"), "active_type"),
                    elementwiseKind(config_.getString("active_gate_type"), "active_gate_type"), H_, useGpu_);
    activation_.reset(new Activation(""));
    for (Matrix* m : {&rh_, &dzr_, &dcand_, &drh_, &scratch_}) m->setDevice(useGpu_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.value.height();
    PADDLE_ENFORCE(input(1).value.height() == rows, DataError, "output_mem '", inputLayers()[1]->name(), "' has ",
                   input(1).value.height(), " rows, expected ", rows);
    splitGates(in.value, zr_, cand_, H_);
    if (bias_) {
      math::addRowVector(zr_, view(bias_->value(), 0, 1, 2 * H_));
      math::addRowVector(cand_, view(bias_->value(), 2 * H_, 1, H_));
    }
    rh_.resize(rows, H_);
    resetOutput(rows, H_);
    Matrix Ug = view(weight(0)->value(), 0, H_, 2 * H_);
    Matrix Uc = view(weight(0)->value(), 2 * H_ * H_, H_, H_);
    step_.forward(zr_, cand_, &input(1).value, Ug, Uc, rh_, output_.value);
    output_.seqStarts = in.seqStarts;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const size_t rows = zr_.height();
    dzr_.resize(rows, 2 * H_);
    dcand_.resize(rows, H_);
    drh_.resize(rows, H_);
    Argument& prev = input(1);
    Matrix* dhp = &prev.grad;
    if (prev.grad.empty()) {  // nobody needs it: accumulate into scratch
      scratch_.resize(rows, H_);
      scratch_.zero();
      dhp = &scratch_;
    }
    Matrix Ug = view(weight(0)->value(), 0, H_, 2 * H_);
    Matrix Uc = view(weight(0)->value(), 2 * H_ * H_, H_, H_);
    Matrix dUg = view(weight(0)->grad(), 0, H_, 2 * H_);
    Matrix dUc = view(weight(0)->grad(), 2 * H_ * H_, H_, H_);
    bool trainW = !weight(0)->isStatic();
    step_.backward(zr_, cand_, &prev.value, Ug, Uc, rh_, output_.grad, dzr_, dcand_, drh_, dhp,
                   trainW ? &dUg : nullptr, trainW ? &dUc : nullptr);
    joinGates(dzr_, dcand_, inputGrad_, H_);
    Argument& in = input(0);
    if (!in.grad.empty()) math::axpby(1.0f, inputGrad_, 1.0f, in.grad);
    if (bias_ && !bias_->isStatic()) math::sumRows(inputGrad_, bias_->grad());
  }

 private:
  size_t H_ = 0;
  GruStep step_;
  Matrix zr_, cand_, rh_, dzr_, dcand_, drh_, inputGrad_, scratch_;
};

REGISTER_LAYER("lstmemory", LstmLayer);
REGISTER_LAYER("lstm_step", LstmStepLayer);
REGISTER_LAYER("gru_step", GruStepLayer);
REGISTER_LAYER("gated_recurrent", GruLayer);
REGISTER_LAYER("recurrent", SimpleRecurrentLayer);

}  // namespace paddle
