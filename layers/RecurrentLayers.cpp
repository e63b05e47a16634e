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
    gateKind_ = elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type");
    stateKind_ = elementwiseKind(config_.getString("active_state_type", "tanh"), "active_state_type");
    zeros_.assign(4 * H_, 0.0f);
    scratch_.assign(5 * H_, 0.0f);
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
    const float* checkI = peephole(0);
    const float* checkF = peephole(1);
    const float* checkO = peephole(2);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      if (t > 0) {
        Matrix g = gates_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(prevBegin(t), prevBegin(t) + r), false, W, false, g, 1.0f, 1.0f);
      }
      for (size_t i = 0; i < r; ++i) {
        float* __restrict g = gates_.row(b0 + i);
        const float* __restrict cp = t > 0 ? cells_.row(prevBegin(t) + i) : zeros_.data();
        float* __restrict c = cells_.row(b0 + i);
        float* __restrict s = states_.row(b0 + i);
        float* __restrict h = hidden_.row(b0 + i);
        activate(actKind_, g, H);  // candidate
        for (size_t j = 0; j < H; ++j) {
          g[H + j] += cp[j] * checkI[j];
          g[2 * H + j] += cp[j] * checkF[j];
        }
        activate(gateKind_, g + H, 2 * H);  // input and forget gates
        for (size_t j = 0; j < H; ++j) {
          c[j] = g[j] * g[H + j] + cp[j] * g[2 * H + j];
          g[3 * H + j] += c[j] * checkO[j];
        }
        activate(gateKind_, g + 3 * H, H);  // output gate
        std::memcpy(s, c, H * sizeof(float));
        activate(stateKind_, s, H);
        for (size_t j = 0; j < H; ++j) h[j] = g[3 * H + j] * s[j];
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
    const float* checkI = peephole(0);
    const float* checkF = peephole(1);
    const float* checkO = peephole(2);
    std::vector<float> dCheck(3 * H, 0.0f);
    float* ds = scratch_.data();
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      for (size_t i = 0; i < r; ++i) {
        const float* __restrict g = gates_.row(b0 + i);
        const float* __restrict cp = t > 0 ? cells_.row(prevBegin(t) + i) : zeros_.data();
        const float* __restrict c = cells_.row(b0 + i);
        const float* __restrict s = states_.row(b0 + i);
        const float* __restrict dh = hiddenGrad_.row(b0 + i);
        float* __restrict dc = cellGrad_.row(b0 + i);
        float* __restrict dg = gateGrad_.row(b0 + i);
        for (size_t j = 0; j < H; ++j) {
          dg[3 * H + j] = dh[j] * s[j];     // output gate
          ds[j] = dh[j] * g[3 * H + j];     // through the state activation
        }
        multiplyDerivative(gateKind_, g + 3 * H, dg + 3 * H, H);
        multiplyDerivative(stateKind_, s, ds, H);
        for (size_t j = 0; j < H; ++j) {
          dc[j] += ds[j] + dg[3 * H + j] * checkO[j];
          dg[H + j] = dc[j] * g[j];          // input gate
          dg[2 * H + j] = dc[j] * cp[j];     // forget gate
          dg[j] = dc[j] * g[H + j];          // candidate
        }
        multiplyDerivative(gateKind_, g + H, dg + H, 2 * H);
        multiplyDerivative(actKind_, g, dg, H);
        if (t > 0) {
          float* __restrict dcp = cellGrad_.row(prevBegin(t) + i);
          for (size_t j = 0; j < H; ++j) {
            dcp[j] += dc[j] * g[2 * H + j] + dg[H + j] * checkI[j] + dg[2 * H + j] * checkF[j];
          }
        }
        for (size_t j = 0; j < H; ++j) {
          dCheck[j] += dg[H + j] * cp[j];
          dCheck[H + j] += dg[2 * H + j] * cp[j];
          dCheck[2 * H + j] += dg[3 * H + j] * c[j];
        }
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
  act::Kind gateKind_ = act::kSigmoid, stateKind_ = act::kTanh;
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
    gateKind_ = elementwiseKind(config_.getString("active_gate_type", "sigmoid"), "active_gate_type");
    zeros_.assign(H_, 0.0f);
  }

  void forward(PassType pass) override {
    const size_t H = H_;
    startForward(pass, input_);
    const size_t T = input_.height();
    if (bias_) math::addRowVector(input_, bias_->value());
    zr_.resize(T, 2 * H);
    cand_.resize(T, H);
    resetH_.resize(T, H);
    hidden_.resize(T, H);
    for (size_t b = 0; b < T; ++b) {  // split (z, r | candidate) for contiguous GEMMs
      std::memcpy(zr_.row(b), input_.row(b), 2 * H * sizeof(float));
      std::memcpy(cand_.row(b), input_.row(b) + 2 * H, H * sizeof(float));
    }
    Matrix Ug = view(weight(0)->value(), 0, H, 2 * H);
    Matrix Uc = view(weight(0)->value(), 2 * H * H, H, H);
    for (size_t t = 0; t < batch_.numSteps(); ++t) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      const size_t p0 = t > 0 ? prevBegin(t) : 0;
      if (t > 0) {
        Matrix zr = zr_.rows(b0, b0 + r);
        math::gemm(hidden_.rows(p0, p0 + r), false, Ug, false, zr, 1.0f, 1.0f);
      }
      activate(gateKind_, zr_.row(b0), r * 2 * H);
      for (size_t i = 0; i < r; ++i) {
        const float* hp = t > 0 ? hidden_.row(p0 + i) : zeros_.data();
        const float* rg = zr_.row(b0 + i) + H;
        float* rh = resetH_.row(b0 + i);
        for (size_t j = 0; j < H; ++j) rh[j] = rg[j] * hp[j];
      }
      if (t > 0) {
        Matrix c = cand_.rows(b0, b0 + r);
        math::gemm(resetH_.rows(b0, b0 + r), false, Uc, false, c, 1.0f, 1.0f);
      }
      activate(actKind_, cand_.row(b0), r * H);
      for (size_t i = 0; i < r; ++i) {
        const float* hp = t > 0 ? hidden_.row(p0 + i) : zeros_.data();
        const float* z = zr_.row(b0 + i);
        const float* c = cand_.row(b0 + i);
        float* h = hidden_.row(b0 + i);
        for (size_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * hp[j] + z[j] * c[j];
      }
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
    for (size_t t = batch_.numSteps(); t-- > 0;) {
      const size_t b0 = batch_.stepBegin(t), r = batch_.stepRows(t);
      const size_t p0 = t > 0 ? prevBegin(t) : 0;
      for (size_t i = 0; i < r; ++i) {
        const float* hp = t > 0 ? hidden_.row(p0 + i) : zeros_.data();
        const float* z = zr_.row(b0 + i);
        const float* c = cand_.row(b0 + i);
        const float* dh = hiddenGrad_.row(b0 + i);
        float* dz = zrGrad_.row(b0 + i);
        float* dc = candGrad_.row(b0 + i);
        for (size_t j = 0; j < H; ++j) {
          dz[j] = dh[j] * (c[j] - hp[j]);
          dc[j] = dh[j] * z[j];
        }
        multiplyDerivative(gateKind_, z, dz, H);
        multiplyDerivative(actKind_, c, dc, H);
      }
      Matrix dcT = candGrad_.rows(b0, b0 + r);
      Matrix drh = rhGrad_.rows(b0, b0 + r);
      if (t > 0) {
        math::gemm(dcT, false, Uc, true, drh, 1.0f, 0.0f);
      } else {
        drh.zero();  // the reset gate sees a zero state at the first step
      }
      for (size_t i = 0; i < r; ++i) {
        const float* hp = t > 0 ? hidden_.row(p0 + i) : zeros_.data();
        const float* rg = zr_.row(b0 + i) + H;
        const float* z = zr_.row(b0 + i);
        const float* dh = hiddenGrad_.row(b0 + i);
        const float* d = rhGrad_.row(b0 + i);
        float* dr = zrGrad_.row(b0 + i) + H;
        for (size_t j = 0; j < H; ++j) dr[j] = d[j] * hp[j];
        multiplyDerivative(gateKind_, rg, dr, H);
        if (t > 0) {
          float* dhp = hiddenGrad_.row(p0 + i);
          for (size_t j = 0; j < H; ++j) dhp[j] += d[j] * rg[j] + dh[j] * (1 - z[j]);
        }
      }
      if (t > 0) {
        Matrix dzr = zrGrad_.rows(b0, b0 + r);
        Matrix dhPrev = hiddenGrad_.rows(p0, p0 + r);
        math::gemm(dzr, false, Ug, true, dhPrev, 1.0f, 1.0f);
        if (weightTrainable()) {
          Matrix dUg = view(weight(0)->grad(), 0, H, 2 * H);
          Matrix dUc = view(weight(0)->grad(), 2 * H * H, H, H);
          math::gemm(hidden_.rows(p0, p0 + r), true, dzr, false, dUg, 1.0f, 1.0f);
          math::gemm(resetH_.rows(b0, b0 + r), true, dcT, false, dUc, 1.0f, 1.0f);
        }
      }
    }
    inputGrad_.resize(T, 3 * H);
    for (size_t b = 0; b < T; ++b) {
      std::memcpy(inputGrad_.row(b), zrGrad_.row(b), 2 * H * sizeof(float));
      std::memcpy(inputGrad_.row(b) + 2 * H, candGrad_.row(b), H * sizeof(float));
    }
    if (biasTrainable()) math::sumRows(inputGrad_, bias_->grad());
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(inputGrad_, in.grad, true);
  }

 private:
  size_t H_ = 0;
  act::Kind gateKind_ = act::kSigmoid;
  Matrix input_, zr_, cand_, resetH_, hidden_;  // batch order
  Matrix hiddenGrad_, zrGrad_, candGrad_, rhGrad_, inputGrad_;
  std::vector<float> zeros_;
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

REGISTER_LAYER("lstmemory", LstmLayer);
REGISTER_LAYER("gated_recurrent", GruLayer);
REGISTER_LAYER("recurrent", SimpleRecurrentLayer);

}  // namespace paddle
