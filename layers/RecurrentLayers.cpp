// "recurrent": the simple RNN over whole sequences. The LSTM and GRU layers live in
// LstmLayers.cpp and GruLayers.cpp; what they share, in RecurrentLayers.h.
#include "layers/RecurrentLayers.h"

namespace paddle {

namespace {
using namespace rnn;

// y = f(y) and g *= f'(y) over n values, for the simple recurrent layer.
template <typename F>
void activateValues(F f, bool gpu, float* y, size_t n) {
  forEachParallel(gpu, n, [=] PD_HD(size_t i) { y[i] = f.fwd(y[i]); });
}
template <typename F>
void multiplyDerivativeValues(F f, bool gpu, const float* __restrict y, float* __restrict g, size_t n) {
  forEachParallel(gpu, n, [=] PD_HD(size_t i) { g[i] *= f.bwd(y[i], 0.0f); });
}
}  // namespace

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
      }
    }
    if (weightTrainable() && batch_.numSteps() > 1) {
      Matrix dW = view(weight(0)->grad(), 0, size_, size_);
      recurrentWeightGradient(hidden_, grad_, dW);
    }
    if (biasTrainable()) math::sumRows(grad_, bias_->grad());
    Argument& in = input(0);
    if (!in.grad.empty()) batch_.toSequence(grad_, in.grad, true);
  }

  void releaseForwardState() override { releaseBuffers({&hidden_, &grad_}); }

 private:
  Matrix hidden_, grad_;  // batch order
};

REGISTER_LAYER("recurrent", SimpleRecurrentLayer);

}  // namespace paddle
