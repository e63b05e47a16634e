// Recurrent layers over variable-length sequences without padding:
// "lstmemory" (LSTM with peepholes), "gated_recurrent" (GRU) and "recurrent"
// (simple RNN). Each reorders its input into time-major batches
// (SequenceToBatch), runs one GEMM per time step on the rows still active, and
// fuses the gate math per row. Their input is already the projected x (4H / 3H
// / H wide); the recurrent weights are theirs.
#include <algorithm>
#include <cstring>

#include "Errors.h"
#include "Layer.h"
#include "SequenceToBatch.h"
#include "math/MathOps.h"

namespace paddle {

namespace {
// A [rows, cols] view of raw parameter memory (recurrent weights have 3-D dims).
Matrix view(Matrix& m, size_t offset, size_t rows, size_t cols) {
  return Matrix::view(m.data() + offset, rows, cols, m.useGpu());
}
}  // namespace

// One row of the LSTM cell (v1 order: candidate, input, forget, output gate).
// g holds the 4H pre-activations and is activated in place; cp is the previous
// cell (zeros at the first step); writes the cell c, s = state_act(c), h.
struct LstmCell {
  act::Kind act, gate, state;
  size_t H;
  const float *checkI, *checkF, *checkO;  // peepholes

  void forward(float* __restrict g, const float* __restrict cp, float* __restrict c, float* __restrict s,
               float* __restrict h) const {
    activate(act, g, H);
    for (size_t j = 0; j < H; ++j) {
      g[H + j] += cp[j] * checkI[j];
      g[2 * H + j] += cp[j] * checkF[j];
    }
    activate(gate, g + H, 2 * H);
    for (size_t j = 0; j < H; ++j) {
      c[j] = g[j] * g[H + j] + cp[j] * g[2 * H + j];
      g[3 * H + j] += c[j] * checkO[j];
    }
    activate(gate, g + 3 * H, H);
    std::memcpy(s, c, H * sizeof(float));
    activate(state, s, H);
    for (size_t j = 0; j < H; ++j) h[j] = g[3 * H + j] * s[j];
  }

  // dh: gradient of h; dc: gradient of c so far (from later steps), completed here.
  // Writes dg (4H pre-activation grads), adds into dcp (if not null) and the
  // peephole grads dCheck (3H).
  void backward(const float* __restrict g, const float* __restrict cp, const float* __restrict c,
                const float* __restrict s, const float* __restrict dh, float* __restrict dc, float* __restrict dg,
                float* __restrict dcp, float* __restrict dCheck, float* __restrict ds) const {
    for (size_t j = 0; j < H; ++j) {
      dg[3 * H + j] = dh[j] * s[j];
      ds[j] = dh[j] * g[3 * H + j];
    }
    multiplyDerivative(gate, g + 3 * H, dg + 3 * H, H);
    multiplyDerivative(state, s, ds, H);
    for (size_t j = 0; j < H; ++j) {
      dc[j] += ds[j] + dg[3 * H + j] * checkO[j];
      dg[H + j] = dc[j] * g[j];
      dg[2 * H + j] = dc[j] * cp[j];
      dg[j] = dc[j] * g[H + j];
    }
    multiplyDerivative(gate, g + H, dg + H, 2 * H);
    multiplyDerivative(act, g, dg, H);
    if (dcp) {
      for (size_t j = 0; j < H; ++j) dcp[j] += dc[j] * g[2 * H + j] + dg[H + j] * checkI[j] + dg[2 * H + j] * checkF[j];
    }
    for (size_t j = 0; j < H; ++j) {
      dCheck[j] += dg[H + j] * cp[j];
      dCheck[H + j] += dg[2 * H + j] * cp[j];
      dCheck[2 * H + j] += dg[3 * H + j] * c[j];
    }
  }
};

// One GRU step over r rows: zr [r, 2H] and cand [r, H] hold the input parts
// (plus bias) and are activated in place; hp is the previous state (null at the
// first step). Ug [H, 2H] and Uc [H, H] are the recurrent weights.
struct GruStep {
  act::Kind act, gate;
  size_t H;

  void forward(Matrix& zr, Matrix& cand, const Matrix* hp, const Matrix& Ug, const Matrix& Uc, Matrix& rh,
               Matrix& h) const {
    const size_t r = zr.height();
    if (hp) math::gemm(*hp, false, Ug, false, zr, 1.0f, 1.0f);
    activate(gate, zr.data(), r * 2 * H);
    for (size_t i = 0; i < r; ++i) {
      const float* rg = zr.row(i) + H;
      float* o = rh.row(i);
      for (size_t j = 0; j < H; ++j) o[j] = hp ? rg[j] * hp->row(i)[j] : 0.0f;
    }
    if (hp) math::gemm(rh, false, Uc, false, cand, 1.0f, 1.0f);
    activate(act, cand.data(), r * H);
    for (size_t i = 0; i < r; ++i) {
      const float* z = zr.row(i);
      const float* c = cand.row(i);
      float* o = h.row(i);
      for (size_t j = 0; j < H; ++j) o[j] = (1 - z[j]) * (hp ? hp->row(i)[j] : 0.0f) + z[j] * c[j];
    }
  }

  // dh: gradient of h (r rows). Writes dzr, dcand (pre-activation grads); adds
  // into dhp (if hp) and into the weight grads dUg / dUc (if not null).
  void backward(const Matrix& zr, const Matrix& cand, const Matrix* hp, const Matrix& Ug, const Matrix& Uc,
                const Matrix& rh, const Matrix& dh, Matrix& dzr, Matrix& dcand, Matrix& drh, Matrix* dhp,
                Matrix* dUg, Matrix* dUc) const {
    const size_t r = zr.height();
    for (size_t i = 0; i < r; ++i) {
      const float* z = zr.row(i);
      const float* c = cand.row(i);
      const float* g = dh.row(i);
      float* dz = dzr.row(i);
      float* dc = dcand.row(i);
      for (size_t j = 0; j < H; ++j) {
        dz[j] = g[j] * (c[j] - (hp ? hp->row(i)[j] : 0.0f));
        dc[j] = g[j] * z[j];
      }
      multiplyDerivative(gate, z, dz, H);
      multiplyDerivative(act, c, dc, H);
    }
    if (!hp) {
      for (size_t i = 0; i < r; ++i) std::fill(dzr.row(i) + H, dzr.row(i) + 2 * H, 0.0f);  // r saw a zero state
      return;
    }
    math::gemm(dcand, false, Uc, true, drh, 1.0f, 0.0f);
    for (size_t i = 0; i < r; ++i) {
      const float* rg = zr.row(i) + H;
      const float* z = zr.row(i);
      const float* g = dh.row(i);
      const float* d = drh.row(i);
      const float* hprev = hp->row(i);
      float* dr = dzr.row(i) + H;
      for (size_t j = 0; j < H; ++j) dr[j] = d[j] * hprev[j];
      multiplyDerivative(gate, rg, dr, H);
      float* dprev = dhp->row(i);
      for (size_t j = 0; j < H; ++j) dprev[j] += d[j] * rg[j] + g[j] * (1 - z[j]);
    }
    math::gemm(dzr, false, Ug, true, *dhp, 1.0f, 1.0f);
    if (dUg) math::gemm(*hp, true, dzr, false, *dUg, 1.0f, 1.0f);
    if (dUc) math::gemm(rh, true, dcand, false, *dUc, 1.0f, 1.0f);
  }
};

// [rows, 3H] gate input -> (z, r) [rows, 2H] and candidate [rows, H], so the
// GEMMs of a GRU step see contiguous blocks; joinGates is the inverse.
void splitGates(const Matrix& in, Matrix& zr, Matrix& cand, size_t H) {
  zr.resize(in.height(), 2 * H);
  cand.resize(in.height(), H);
  for (size_t b = 0; b < in.height(); ++b) {
    std::memcpy(zr.row(b), in.row(b), 2 * H * sizeof(float));
    std::memcpy(cand.row(b), in.row(b) + 2 * H, H * sizeof(float));
  }
}

void joinGates(const Matrix& zr, const Matrix& cand, Matrix& out, size_t H) {
  out.resize(zr.height(), 3 * H);
  for (size_t b = 0; b < zr.height(); ++b) {
    std::memcpy(out.row(b), zr.row(b), 2 * H * sizeof(float));
    std::memcpy(out.row(b) + 2 * H, cand.row(b), H * sizeof(float));
  }
}

// Shared plumbing: sequence <-> batch order, the weight, the bias, dropout.
class BatchRecurrentLayer : public Layer {
 public:
  using Layer::Layer;

 protected:
  void initRecurrent(LayerContext& ctx, size_t inputWidth, size_t weightSize, size_t biasSize) {
    Layer::init(ctx);
    requireCpu();
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
    reversed_ = config_.getBool("reversed", false);
    actKind_ = elementwiseKind(config_.getString("active_type", "tanh"), "active_type");
    // The activation runs inside the cell; the base class only applies dropout.
    activation_.reset(new Activation(""));
  }

  // Reorders input 0 into batch order in `dst`, builds the schedule.
  void startForward(PassType pass, Matrix& dst) {
    pass_ = pass;
    const Argument& in = input(0);
    batch_.build(in.seqStarts, in.value.height(), reversed_);
    batch_.toBatch(in.value, dst);
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
    H_ = static_cast<size_t>(config_.getInt("size", 0));
    initRecurrent(ctx, 4 * H_, 4 * H_ * H_, 7 * H_);
    cell_.act = actKind_;
    cell_.gate = elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type");
    cell_.state = elementwiseKind(config_.getString("active_state_type", "tanh"), "active_state_type");
    cell_.H = H_;
    zeros_.assign(4 * H_, 0.0f);
    scratch_.assign(H_, 0.0f);
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    startForward(pass, gates_);
    const size_t T = gates_.height();
    if (bias_) math::addRowVector(gates_, view(bias_->value(), 0, 1, 4 * H));
    cells_.resize(T, H);
    states_.resize(T, H);
    hidden_.resize(T, H);
    Matrix W = view(weight(0)->value(), 0, H, 4 * H);
    cell_.checkI = peephole(0);
    cell_.checkF = peephole(1);
    cell_.checkO = peephole(2);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      if (t > 0) {
        Matrix g = gates_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(prevBegin(t), prevBegin(t) + r), false, W, false, g, 1.0f, 1.0f);
      }
      for (size_t i = 0; i < r; ++i) {
        const float* cp = t > 0 ? cells_.row(prevBegin(t) + i) : zeros_.data();
        cell_.forward(gates_.row(b0 + i), cp, cells_.row(b0 + i), states_.row(b0 + i), hidden_.row(b0 + i));
      }
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
    std::vector<float> dCheck(3 * H, 0.0f);
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      for (size_t i = 0; i < r; ++i) {
        const float* cp = t > 0 ? cells_.row(prevBegin(t) + i) : zeros_.data();
        float* dcp = t > 0 ? cellGrad_.row(prevBegin(t) + i) : nullptr;
        cell_.backward(gates_.row(b0 + i), cp, cells_.row(b0 + i), states_.row(b0 + i), hiddenGrad_.row(b0 + i),
                       cellGrad_.row(b0 + i), gateGrad_.row(b0 + i), dcp, dCheck.data(), scratch_.data());
      }
      if (t > 0) {
        const size_t p0 = prevBegin(t);
        Matrix dgt = gateGrad_.rows(b0, b0 + r);
        Matrix dhPrev = hiddenGrad_.rows(p0, p0 + r);
        math::gemm(dgt, false, W, true, dhPrev, 1.0f, 1.0f);
        if (weightTrainable()) {
          Matrix dW = view(weight(0)->grad(), 0, H, 4 * H);
          math::gemm(hidden_.rows(p0, p0 + r), true, dgt, false, dW, 1.0f, 1.0f);
        }
      }
    }
    if (biasTrainable()) {
      Matrix db = view(bias_->grad(), 0, 1, 4 * H);
      math::sumRows(gateGrad_, db);
      float* dp = bias_->grad().data() + 4 * H;
      for (size_t j = 0; j < 3 * H; ++j) dp[j] += dCheck[j];
    }
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(gateGrad_, in.grad, true);
  }

 private:
  const float* peephole(size_t k) const {
    return bias_ ? bias_->value().data() + (4 + k) * H_ : zeros_.data();
  }
  size_t H_ = 0;
  LstmCell cell_{};
  Matrix gates_, cells_, states_, hidden_;  // batch order
  Matrix hiddenGrad_, cellGrad_, gateGrad_;
  std::vector<float> zeros_, scratch_;
};

// "gated_recurrent": input [T, 3H] = (update z, reset r, candidate) pre-activations;
// weight: [H, 2H] gate block (U_z | U_r) then [H, H] candidate block; bias 3H.
//   z = gate(x_z + h U_z), r = gate(x_r + h U_r), c = act(x_c + (r . h) U), h' = (1-z) h + z c
class GruLayer : public BatchRecurrentLayer {
 public:
  using BatchRecurrentLayer::BatchRecurrentLayer;

  void init(LayerContext& ctx) override {
    H_ = static_cast<size_t>(config_.getInt("size", 0));
    initRecurrent(ctx, 3 * H_, 3 * H_ * H_, 3 * H_);
    step_ = GruStep{actKind_, elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type"), H_};
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    startForward(pass, input_);
    const size_t T = input_.height();
    if (bias_) math::addRowVector(input_, bias_->value());
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
  GruStep step_{};
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
    if (bias_) math::addRowVector(hidden_, bias_->value());
    Matrix W = view(weight(0)->value(), 0, size_, size_);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      if (t > 0) {
        Matrix h = hidden_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(prevBegin(t), prevBegin(t) + r), false, W, false, h, 1.0f, 1.0f);
      }
      activate(actKind_, hidden_.row(b0), r * size_);
    }
    finishForward(hidden_);
  }

  void backward() override {
    startBackward(grad_);
    Matrix W = view(weight(0)->value(), 0, size_, size_);
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      multiplyDerivative(actKind_, hidden_.row(b0), grad_.row(b0), r * size_);
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
    requireCpu();
    checkInputCount(2, 2);
    H_ = size_;
    PADDLE_ENFORCE(H_ > 0, ConfigError, "needs a positive size");
    checkInputSize(0, 4 * H_);
    checkInputSize(1, H_);
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == 3 * H_, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", 3 * H_, " (peepholes)");
    }
    zeros_.assign(3 * H_, 0.0f);
    cell_ = LstmCell{elementwiseKind(config_.getString("active_type", "tanh"), "active_type"),
                     elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type"),
                     elementwiseKind(config_.getString("active_state_type", "sigmoid"), "active_state_type"), H_,
                     nullptr, nullptr, nullptr};
    activation_.reset(new Activation(""));  // applied inside the cell
    scratch_.assign(H_, 0.0f);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.value.height();
    PADDLE_ENFORCE(input(1).value.height() == rows, DataError, "state input '", inputLayers()[1]->name(), "' has ",
                   input(1).value.height(), " rows, expected ", rows);
    gates_.copyFrom(in.value);
    setPeepholes();
    resetOutput(rows, H_);
    state_.value.resize(rows, H_);
    states_.resize(rows, H_);
    if (pass == PASS_TRAIN || pass == PASS_GC) {
      state_.grad.resize(rows, H_);
      state_.grad.zero();
    }
    for (size_t i = 0; i < rows; ++i) {
      cell_.forward(gates_.row(i), input(1).value.row(i), state_.value.row(i), states_.row(i), output_.value.row(i));
    }
    output_.seqStarts = state_.seqStarts = in.seqStarts;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const size_t rows = gates_.height();
    gateGrad_.resize(rows, 4 * H_);
    std::vector<float> dCheck(3 * H_, 0.0f);
    Argument& prev = input(1);
    for (size_t i = 0; i < rows; ++i) {
      cell_.backward(gates_.row(i), prev.value.row(i), state_.value.row(i), states_.row(i), output_.grad.row(i),
                     state_.grad.row(i), gateGrad_.row(i), prev.grad.empty() ? nullptr : prev.grad.row(i),
                     dCheck.data(), scratch_.data());
    }
    Argument& in = input(0);
    if (!in.grad.empty()) math::axpby(1.0f, gateGrad_, 1.0f, in.grad);
    if (bias_ && !bias_->isStatic()) {
      float* g = bias_->grad().data();
      for (size_t j = 0; j < 3 * H_; ++j) g[j] += dCheck[j];
    }
  }

 private:
  void setPeepholes() {
    const float* b = bias_ ? bias_->value().data() : zeros_.data();
    cell_.checkI = b;
    cell_.checkF = b + H_;
    cell_.checkO = b + 2 * H_;
  }
  size_t H_ = 0;
  LstmCell cell_{};
  Argument& state_ = publishOutput("state");  // the cell c
  Matrix gates_, states_, gateGrad_;
  std::vector<float> zeros_, scratch_;
};

// "gru_step": one GRU step inside a recurrent_group. Inputs: the 3H gate inputs
// (with the recurrent weight [H, 3H] as its parameter) and h_{t-1}; bias 3H.
class GruStepLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
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
    step_ = GruStep{elementwiseKind(config_.getString("active_type", "tanh"), "active_type"),
                    elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type"), H_};
    activation_.reset(new Activation(""));
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
  GruStep step_{};
  Matrix zr_, cand_, rh_, dzr_, dcand_, drh_, inputGrad_, scratch_;
};

REGISTER_LAYER("lstmemory", LstmLayer);
REGISTER_LAYER("lstm_step", LstmStepLayer);
REGISTER_LAYER("gru_step", GruStepLayer);
REGISTER_LAYER("gated_recurrent", GruLayer);
REGISTER_LAYER("recurrent", SimpleRecurrentLayer);

}  // namespace paddle
