// "gated_recurrent" (a GRU over whole sequences) and "gru_step" (one step inside a
// recurrent_group); both run GruStep, so they compute the same thing.
#include "layers/RecurrentLayers.h"

namespace paddle {

namespace {
using namespace rnn;

// The kernels of the cells, one index per (row, unit) through forEachUnit: the CPU splits
// the rows (the batch's sequences) across the thread pool and vectorises along the units.
// Their pointers are never null (absent states and peepholes read zeros) and never
// overlap, which __restrict tells the compiler for their other loops; they stay out of
// line because GCC forgets __restrict when it inlines a function.

// GRU gates (see GruStep::forward): z and r, the two halves of the rows of zr
// (2n wide), activated in place; resetPrev = r . prev.
template <typename G>
[[gnu::noinline]] void gruGates(G fg, bool gpu, size_t rows, size_t n, float* __restrict zr,
                                const float* __restrict prev, float* __restrict resetPrev) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    float* z = zr + i * 2 * n;
    z[j] = fg.fwd(z[j]);
    const float r = fg.fwd(z[n + j]);
    z[n + j] = r;
    resetPrev[i * n + j] = r * prev[i * n + j];
  });
}

// GRU output: the candidate activated in place, h = (1 - z) prev + z cand.
template <typename A>
[[gnu::noinline]] void gruOutput(A fa, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                 const float* __restrict prev, float* __restrict cand, float* __restrict hidden) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float c = fa.fwd(cand[u]);
    const float z = zr[i * 2 * n + j];
    cand[u] = c;
    hidden[u] = (1 - z) * prev[u] + z * c;
  });
}

// The z half of dzr and dcand from the gradient of h.
template <typename A, typename G>
[[gnu::noinline]] void gruOutputBackward(A fa, G fg, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                         const float* __restrict cand, const float* __restrict prev,
                                         const float* __restrict hiddenGrad, float* __restrict dzr,
                                         float* __restrict dcand) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float z = zr[i * 2 * n + j], dh = hiddenGrad[u];
    dzr[i * 2 * n + j] = dh * (cand[u] - prev[u]) * fg.bwd(z, 0.0f);
    dcand[u] = dh * z * fa.bwd(cand[u], 0.0f);
  });
}

// The r half of dzr from drh = dcand Uc^T; adds the direct terms into prevGrad.
template <typename G>
[[gnu::noinline]] void gruResetBackward(G fg, bool gpu, size_t rows, size_t n, const float* __restrict zr,
                                        const float* __restrict prev, const float* __restrict hiddenGrad,
                                        const float* __restrict drh, float* __restrict dzr,
                                        float* __restrict prevGrad) {
  forEachUnit(gpu, rows, n, [=] PD_HD(size_t i, size_t j) {
    const size_t u = i * n + j;
    const float r = zr[i * 2 * n + n + j];
    dzr[i * 2 * n + n + j] = drh[u] * prev[u] * fg.bwd(r, 0.0f);
    prevGrad[u] += drh[u] * r + hiddenGrad[u] * (1 - zr[i * 2 * n + j]);
  });
}

// a * op(u) into c, with u a weight matrix (op(u) = u^T when transU) or a weight packed for the
// whole batch (which knows its op)
inline void recurrentProduct(const Matrix& a, const Matrix& u, bool transU, Matrix& c, float beta) {
  math::gemm(a, false, u, transU, c, 1.0f, beta);
}
inline void recurrentProduct(const Matrix& a, const math::ReusedOperand& u, bool, Matrix& c, float beta) {
  math::gemm(a, u, c, 1.0f, beta);
}

// One GRU step over r rows: zr [r, 2H] and cand [r, H] hold the input parts
// (plus bias) and are activated in place; hp is the previous state (null at the
// first step). Ug [H, 2H] and Uc [H, H] are the recurrent weights (U: Matrix, or
// ReusedOperand packed as U in the forward and as U^T in the backward). Runs on the layer's device.
class GruStep {
 public:
  GruStep() = default;
  GruStep(act::Kind act, act::Kind gate, size_t H, bool gpu) : act_(act), gate_(gate), H_(H), gpu_(gpu) {
    placeholders_.setDevice(gpu);
  }

  template <typename U>
  void forward(Matrix& zr, Matrix& cand, const Matrix* hp, const U& Ug, const U& Uc, Matrix& rh, Matrix& h) {
    const size_t r = zr.height();
    const float* prev = hp ? hp->data() : placeholders_.zeros(r * H_);
    if (hp) recurrentProduct(*hp, Ug, false, zr, 1.0f);
    withActs(act_, gate_, [&](auto fa, auto fg) {
      gruGates(fg, gpu_, r, H_, zr.data(), prev, rh.data());
      if (hp) recurrentProduct(rh, Uc, false, cand, 1.0f);
      gruOutput(fa, gpu_, r, H_, zr.data(), prev, cand.data(), h.data());
    });
  }

  // Sizes the zeros for steps of up to `rows` rows, so that concurrent steps only read them.
  void reserve(size_t rows) { placeholders_.zeros(rows * H_); }

  // dh: gradient of h (r rows). Writes dzr, dcand (pre-activation grads); adds
  // into dhp (if hp) and into the weight grads dUg / dUc (if not null).
  template <typename U>
  void backward(const Matrix& zr, const Matrix& cand, const Matrix* hp, const U& Ug, const U& Uc,
                const Matrix& rh, const Matrix& dh, Matrix& dzr, Matrix& dcand, Matrix& drh, Matrix* dhp,
                Matrix* dUg, Matrix* dUc) {
    const size_t r = zr.height();
    if (!hp) dzr.zero();  // r saw a zero state
    const float* prev = hp ? hp->data() : placeholders_.zeros(r * H_);
    withActs(act_, gate_, [&](auto fa, auto fg) {
      gruOutputBackward(fa, fg, gpu_, r, H_, zr.data(), cand.data(), prev, dh.data(), dzr.data(), dcand.data());
      if (!hp) return;
      recurrentProduct(dcand, Uc, true, drh, 0.0f);
      gruResetBackward(fg, gpu_, r, H_, zr.data(), prev, dh.data(), drh.data(), dzr.data(), dhp->data());
    });
    if (!hp) return;
    recurrentProduct(dzr, Ug, true, *dhp, 1.0f);
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
    buildSchedule(pass);
    const size_t T = input(0).value.height();
    // reordered straight into the two blocks the steps' products see (one pass, not two)
    Matrix bias = bias_ ? view(bias_->value(), 0, 1, 3 * H) : Matrix();
    batch_.toBatchSplit(input(0).value, 2 * H, zr_, cand_, bias_ ? &bias : nullptr);
    resetH_.resize(T, H);
    hidden_.resize(T, H);
    Matrix Ug = view(weight(0)->value(), 0, H, 2 * H);
    Matrix Uc = view(weight(0)->value(), 2 * H * H, H, H);
    if (batch_.numSteps() > 1) {  // packed once for all the steps
      ug_.set(Ug, false);
      uc_.set(Uc, false);
    }
    const size_t groups = sequenceGroupCount(sequenceGroups());
    if (groups > 1) step_.reserve(batch_.stepRows(0));
    forEachSequenceGroup(groups, [&](size_t a, size_t b) {
      for (size_t t = 0; t < batch_.numSteps() && batch_.stepRows(t) > a; ++t) {
        const size_t b0 = batch_.stepBegin(t) + a, b1 = batch_.stepBegin(t) + std::min(batch_.stepRows(t), b);
        Matrix zr = zr_.rows(b0, b1), cand = cand_.rows(b0, b1), rh = resetH_.rows(b0, b1), h = hidden_.rows(b0, b1);
        const size_t p0 = t > 0 ? prevBegin(t) + a : 0;
        Matrix hp = t > 0 ? hidden_.rows(p0, p0 + (b1 - b0)) : Matrix();
        step_.forward(zr, cand, t > 0 ? &hp : nullptr, ug_, uc_, rh, h);
      }
    });
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
    if (batch_.numSteps() > 1) {
      ug_.set(Ug, true);
      uc_.set(Uc, true);
    }
    const size_t groups = sequenceGroupCount(sequenceGroups());
    if (groups > 1) step_.reserve(batch_.stepRows(0));
    forEachSequenceGroup(groups, [&](size_t a, size_t b) {
      for (size_t t = batch_.numSteps(); t-- > 0;) {
        if (batch_.stepRows(t) <= a) continue;
        const size_t b0 = batch_.stepBegin(t) + a, b1 = batch_.stepBegin(t) + std::min(batch_.stepRows(t), b);
        const size_t r = b1 - b0, p0 = t > 0 ? prevBegin(t) + a : 0;
        Matrix hp = t > 0 ? hidden_.rows(p0, p0 + r) : Matrix();
        Matrix dhp = t > 0 ? hiddenGrad_.rows(p0, p0 + r) : Matrix();
        Matrix dzr = zrGrad_.rows(b0, b1), dc = candGrad_.rows(b0, b1), drh = rhGrad_.rows(b0, b1);
        step_.backward(zr_.rows(b0, b1), cand_.rows(b0, b1), t > 0 ? &hp : nullptr, ug_, uc_, resetH_.rows(b0, b1),
                       hiddenGrad_.rows(b0, b1), dzr, dc, drh, t > 0 ? &dhp : nullptr, nullptr, nullptr);
      }
    });
    if (weightTrainable() && batch_.numSteps() > 1) {
      // dUg += h_{t-1}^T dzr_t and dUc += (r . h_{t-1})_t^T dcand_t over every step t > 0, one GEMM
      // each (GruStep would run two small ones per step); the rows of rh already line up with dcand's
      recurrentWeightGradient(hidden_, zrGrad_, dUg);
      const size_t first = batch_.stepBegin(1);
      math::gemm(resetH_.rows(first, T), true, candGrad_.rows(first, T), false, dUc, 1.0f, 1.0f);
    }
    Argument& in = input(0);
    if (!useGpu_ && !reverseKernelOrder()) {  // the joined gradient is never formed: one pass, not three
      batch_.addJoinedToSequence(zrGrad_, candGrad_, in.grad.empty() ? nullptr : &in.grad,
                                 biasTrainable() ? &bias_->grad() : nullptr);
      return;
    }
    joinGates(zrGrad_, candGrad_, inputGrad_, H);
    if (biasTrainable()) math::sumRows(inputGrad_, bias_->grad());
    if (!in.grad.empty()) batch_.toSequence(inputGrad_, in.grad, true);
  }

  void releaseForwardState() override {
    releaseBuffers({&zr_, &cand_, &resetH_, &hidden_, &hiddenGrad_, &zrGrad_, &candGrad_, &rhGrad_,
                    &inputGrad_});
  }

 private:
  size_t H_ = 0;
  GruStep step_;
  Matrix zr_, cand_, resetH_, hidden_;  // batch order
  math::ReusedOperand ug_, uc_;  // the recurrent weights: U in the forward, U^T in the backward
  // Whether the steps may run by groups of sequences (forEachSequenceGroup): products through
  // packed bf16 weights, whose bits do not depend on the grouping (OpenBLAS's might).
  bool sequenceGroups() const { return !useGpu_ && ug_.packed() && uc_.packed() && batch_.numSteps() > 1; }
  Matrix hiddenGrad_, zrGrad_, candGrad_, rhGrad_, inputGrad_;
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

  void releaseForwardState() override {
    Layer::releaseForwardState();
    emptyBuffers({&zr_, &cand_, &rh_, &dzr_, &dcand_, &drh_, &inputGrad_, &scratch_});
  }

 private:
  size_t H_ = 0;
  GruStep step_;
  Matrix zr_, cand_, rh_, dzr_, dcand_, drh_, inputGrad_, scratch_;
};

REGISTER_LAYER("gru_step", GruStepLayer);
REGISTER_LAYER("gated_recurrent", GruLayer);

}  // namespace paddle
