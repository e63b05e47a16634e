// "prelu" (v1 ParameterReluLayer): y = x where x > 0, else w[j / partial_sum] * x, with one
// learned slope per group of partial_sum adjacent columns. Slopes get the gradient of the
// negative inputs; the layer's own activation (linear unless set) follows.
#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/Layer.h"

namespace paddle {

namespace {
class PReluLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    group_ = static_cast<size_t>(config_.getInt("partial_sum"));
    PADDLE_ENFORCE(group_ > 0 && size_ % group_ == 0, ConfigError, "prelu layer '", name_, "': partial_sum ",
                   group_, " must divide the size ", size_);
    PADDLE_ENFORCE(weight(0) && weight(0)->size() == size_ / group_, ConfigError, "prelu layer '", name_,
                   "' needs a parameter of size / partial_sum = ", size_ / group_, " slopes");
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    resetOutput(in.batchSize(), size_);
    const float* x = in.value.data();
    const float* w = weight(0)->value().data();
    float* y = output_.value.data();
    const size_t n = size_, g = group_;
    forEach2(useGpu_, in.batchSize(), n, [=] PD_HD(size_t r, size_t j) {
      const float v = x[r * n + j];
      y[r * n + j] = v > 0 ? v : w[j / g] * v;
    });
    output_.shareSequenceOf(in);
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    const Argument& in = input(0);
    const float* x = in.value.data();
    const float* gy = output_.grad.data();
    const size_t rows = output_.grad.height(), n = size_, g = group_;
    Parameter* p = weight(0);
    if (!p->isStatic()) {
      float* gw = p->grad().data();
      // one index per slope: its columns over the batch, in a fixed order
      forEach(useGpu_, n / g, [=] PD_HD(size_t k) {
        float s = 0;
        for (size_t r = 0; r < rows; ++r)
          for (size_t j = k * g; j < (k + 1) * g; ++j)
            if (x[r * n + j] <= 0) s += gy[r * n + j] * x[r * n + j];
        gw[k] += s;
      });
    }
    Matrix& gin = input(0).grad;
    if (gin.empty()) return;
    const float* w = p->value().data();
    float* gx = gin.data();
    forEach2(useGpu_, rows, n, [=] PD_HD(size_t r, size_t j) {
      gx[r * n + j] += x[r * n + j] > 0 ? gy[r * n + j] : w[j / g] * gy[r * n + j];
    });
  }

 private:
  size_t group_ = 1;
};
}  // namespace

REGISTER_LAYER("prelu", PReluLayer);

}  // namespace paddle
