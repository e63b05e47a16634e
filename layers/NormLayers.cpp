// Normalisation family (forEach kernels: CPU loops or GPU grids):
//   "batch_norm" (and "cudnn_batch_norm"): per channel, y = w0 * (x - mean) / sqrt(var + 1e-5) + bias.
//       Training uses the batch's statistics (over samples and pixels; var = E[x^2] - E[x]^2)
//       and updates the static moving averages w1 (mean) and w2 (var):
//       m = m * fraction + batch * (1 - fraction). Testing, or use_global_stats, uses w1/w2.
//       Gradient checks (PASS_GC) use batch statistics without touching w1/w2.
//   "data_norm": y = (x - shift[j]) * scale[j] per column, from the static parameter's five
//       rows [min, 1/range, mean, 1/std, 1/10^k] (v1 DataNormLayer): z-score uses mean and
//       1/std, min-max min and 1/range, decimal-scaling 1/10^k alone.
//   "norm" with norm_type cmrnorm-projection: across-channel local response norm,
//       y = x * (1 + scale * sum_{window} x^2)^(-pow), window [c - (size-1)/2, c + size/2].
#include <cmath>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/ImageUtils.h"
#include "layers/InferenceFusion.h"
#include "layers/Layer.h"
#include "layers/NormLayers.h"

namespace paddle {

// Out of line, so that the one copy of each loop is the vectorised one (inlined into a caller's
// serial branch GCC may leave it scalar).
__attribute__((noinline)) void foldedBatchNormRow(const float* x, float* y, size_t n, float m, float add, bool relu) {
  if (relu) {
    for (size_t p = 0; p < n; ++p) y[p] = act::Relu{}.fwd((x[p] - m) + add);
  } else {
    for (size_t p = 0; p < n; ++p) y[p] = (x[p] - m) + add;
  }
}

namespace {
// f(n, c, o) for every value of a [rows, C*P] batch (C channels of P pixels): sample n,
// channel c, offset o = c*P + p in the row. The CPU's inner loop runs over pixels, or over
// channels when there is one pixel, so that it vectorises.
template <typename F>
void forEachValue(bool gpu, size_t rows, size_t C, size_t P, F f) {
  if (P == 1) {
    forEach2(gpu, rows, C, [=] PD_HD(size_t n, size_t c) { f(n, c, c); });
  } else {
    forEach2(gpu, rows * C, P, [=] PD_HD(size_t r, size_t p) { f(r / C, r % C, r % C * P + p); });
  }
}

// Two running sums in double, each as kLanes interleaved partial sums (so that the CPU
// vectorises the loops that add to them).
struct Sums {
  static constexpr int kLanes = 4;
  double a[kLanes] = {0, 0, 0, 0}, b[kLanes] = {0, 0, 0, 0};
  PD_HD void add(int lane, double x, double y) {
    a[lane] += x;
    b[lane] += y;
  }
  PD_HD double first() const { return (a[0] + a[1]) + (a[2] + a[3]); }
  PD_HD double second() const { return (b[0] + b[1]) + (b[2] + b[3]); }
};

class BatchNormLayer : public Layer, public FusesIntoInput, public TakesResidual {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(3, 3);
    const Json& ic = config_["inputs"][size_t(0)]["image_conf"];
    if (!ic.isNull()) {
      image::ImageShape s = image::readImage(ic);
      channels_ = s.channels;
      pixels_ = static_cast<size_t>(s.height) * s.width;
    } else {
      channels_ = static_cast<int>(inputs_[0]->size());
      pixels_ = 1;
    }
    PADDLE_ENFORCE(channels_ > 0 && channels_ * pixels_ == inputs_[0]->size(), ConfigError,
                   "inputs[0].image_conf: channels ", channels_, " x ", pixels_, " pixels does not match the input size ",
                   inputs_[0]->size());
    PADDLE_ENFORCE(size_ == inputs_[0]->size(), ConfigError, "size ", size_, " differs from the input size ",
                   inputs_[0]->size());
    const char* what[3] = {"scale (inputs[0].input_parameter_name)", "moving mean (inputs[1])",
                           "moving variance (inputs[2])"};
    for (int i = 0; i < 3; ++i) {
      PADDLE_ENFORCE(weight(i) && weight(i)->size() == static_cast<size_t>(channels_), ConfigError, "the ",
                     what[i], " parameter needs ", channels_, " values");
    }
    if (bias_) {
      PADDLE_ENFORCE(bias_->size() == static_cast<size_t>(channels_), ConfigError, "bias '", bias_->name(),
                     "' has ", bias_->size(), " values, expected ", channels_);
    }
    fraction_ = static_cast<float>(config_.getDouble("moving_average_fraction"));
    hasGlobalFlag_ = config_.has("use_global_stats");
    globalFlag_ = config_.getBool("use_global_stats");
    for (Matrix* m : {&mean_, &invStd_, &gradMeans_}) m->setDevice(useGpu_);
  }

  bool fuseIntoInput() override {
    const std::string& act = activation_->type();
    if (useGpu_ || dropRate_ != 0 || (act != "relu" && act != "linear" && !act.empty())) return false;
    auto* producer = dynamic_cast<TakesChannelEpilogue*>(inputs_[0]);
    fusedIntoInput_ = producer && producer->takeChannelEpilogue(weight(1), bias_, act == "relu");
    return fusedIntoInput_;
  }

  // Fused: the conv under it takes the residual sum too.
  bool takeResidual(Layer* residual, bool relu) override {
    auto* producer = dynamic_cast<TakesResidual*>(inputs_[0]);
    return fusedIntoInput_ && producer && producer->takeResidual(residual, relu);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    PADDLE_ENFORCE(in.value.width() == size_, DataError, "layer '", name_, "': input is ", shapeStr(in.value),
                   ", expected width ", size_);
    if (fusedIntoInput_ && pass == PASS_TEST) {  // the producer did the work: its output is ours
      output_.value = in.value;
      shapeOf(in);
      return;
    }
    resetOutput(rows, size_);
    // v1: use_global_stats only chooses what testing normalises with; training always uses
    // the batch's statistics (and moves the averages)
    useGlobal_ = pass == PASS_TEST && (!hasGlobalFlag_ || globalFlag_);
    mean_.resize(1, channels_);
    invStd_.resize(1, channels_);
    float* mean = mean_.data();
    float* inv = invStd_.data();
    const size_t C = channels_, P = pixels_, width = size_;
    const float eps = kBatchNormEpsilon;
    const float* x = in.value.data();
    if (useGlobal_) {
      const float* mm = weight(1)->value().data();
      const float* mv = weight(2)->value().data();
      forEach(useGpu_, C, [=] PD_HD(size_t c) {
        mean[c] = mm[c];
        inv[c] = 1.0f / std::sqrt(fmaxf(mv[c], 0.0f) + eps);
      });
    } else {
      PADDLE_ENFORCE(rows > 0, DataError, "layer '", name_, "': empty batch");
      // one index per channel: its statistics over samples and pixels, and its moving averages
      const double m = static_cast<double>(rows) * P;
      float* mm = weight(1)->value().data();
      float* mv = weight(2)->value().data();
      const bool update = pass == PASS_TRAIN && !recomputing();  // once per batch
      const float frac = fraction_;
      forEach(useGpu_, C, [=] PD_HD(size_t c) {
        Sums s;  // of x and x^2
        for (size_t n = 0; n < rows; ++n) {
          const float* xc = x + n * width + c * P;
          size_t p = 0;
          for (; p + Sums::kLanes <= P; p += Sums::kLanes)
            for (int u = 0; u < Sums::kLanes; ++u) s.add(u, xc[p + u], static_cast<double>(xc[p + u]) * xc[p + u]);
          for (; p < P; ++p) s.add(0, xc[p], static_cast<double>(xc[p]) * xc[p]);
        }
        const double mu = s.first() / m;
        const double var = fmax(s.second() / m - mu * mu, 0.0);
        mean[c] = static_cast<float>(mu);
        inv[c] = static_cast<float>(1.0 / std::sqrt(var + eps));
        if (update) {
          mm[c] = mm[c] * frac + static_cast<float>(mu) * (1 - frac);
          mv[c] = mv[c] * frac + static_cast<float>(var) * (1 - frac);
        }
      });
    }
    float* y = output_.value.data();
    const float* w = weight(0)->value().data();
    const float* b = bias_ ? bias_->value().data() : nullptr;
    if (!useGpu_ && useGlobal_ && forwardShiftOnly(x, rows, y, w, b)) return;
    forEachValue(useGpu_, rows, C, P, [=] PD_HD(size_t n, size_t c, size_t o) {
      const size_t i = n * width + o;
      y[i] = w[c] * ((x[i] - mean[c]) * inv[c]) + (b ? b[c] : 0.0f);
    });
    shapeOf(in);
    forwardActivation();
  }

  // The output's sequences and image geometry are the input's.
  void shapeOf(const Argument& in) {
    output_.shareSequenceOf(in);
    output_.frameHeight = in.frameHeight;
    output_.frameWidth = in.frameWidth;
  }
  // A batch norm folded into its producer's weights (trainer/FoldBatchNorm.h) tests with scale 1 and
  // 1/std 1: y = act((x - mean) + b), the full formula's bits without its two products by 1, relu
  // applied in the same pass. False (nothing done) where some channel's scale or 1/std is not 1.
  bool forwardShiftOnly(const float* x, size_t rows, float* y, const float* w, const float* b) {
    const size_t C = channels_, P = pixels_, width = size_;
    const float* mean = mean_.data();
    const float* inv = invStd_.data();
    for (size_t c = 0; c < C; ++c)
      if (w[c] != 1.0f || inv[c] != 1.0f) return false;
    const bool relu = activation_->type() == "relu" && dropRate_ == 0;
    parallelFor(rows * C, kParallelGrain / P + 1, [&](size_t r0, size_t r1) {
      for (size_t r = r0; r < r1; ++r) {
        const size_t c = r % C, o = r / C * width + c * P;
        const float m = mean[c], add = b ? b[c] : 0.0f;
        foldedBatchNormRow(x + o, y + o, P, m, add, relu);
      }
    });
    const Argument& in = input(0);
    shapeOf(in);
    if (!relu) forwardActivation();
    return true;
  }

  void backward() override {
    backwardActivation();
    const size_t rows = output_.grad.height(), C = channels_, P = pixels_, width = size_;
    const double m = static_cast<double>(rows) * P;
    const float* g = output_.grad.data();
    const float* x = input(0).value.data();  // xhat = (x - mean) * invStd, recomputed
    const float* mean = mean_.data();
    const float* inv = invStd_.data();
    float* gb = bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    float* gw = weight(0)->isStatic() ? nullptr : weight(0)->grad().data();
    gradMeans_.resize(2, C);
    float* mg = gradMeans_.data();  // per channel: mean of g
    float* mgx = mg + C;            // and of g * xhat
    forEach(useGpu_, C, [=] PD_HD(size_t c) {
      Sums s;  // of g and g * xhat
      const float mu = mean[c], is = inv[c];
      for (size_t n = 0; n < rows; ++n) {
        const size_t i = n * width + c * P;
        size_t p = 0;
        for (; p + Sums::kLanes <= P; p += Sums::kLanes)
          for (int u = 0; u < Sums::kLanes; ++u) s.add(u, g[i + p + u], g[i + p + u] * ((x[i + p + u] - mu) * is));
        for (; p < P; ++p) s.add(0, g[i + p], g[i + p] * ((x[i + p] - mu) * is));
      }
      const double s1 = s.first(), s2 = s.second();
      if (gb) gb[c] += static_cast<float>(s1);
      if (gw) gw[c] += static_cast<float>(s2);
      mg[c] = static_cast<float>(s1 / m);
      mgx[c] = static_cast<float>(s2 / m);
    });
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const float* w = weight(0)->value().data();
    float* gx = in.grad.data();
    if (useGlobal_) {
      forEachValue(useGpu_, rows, C, P, [=] PD_HD(size_t n, size_t c, size_t o) {
        gx[n * width + o] += w[c] * inv[c] * g[n * width + o];
      });
    } else {
      forEachValue(useGpu_, rows, C, P, [=] PD_HD(size_t n, size_t c, size_t o) {
        const size_t i = n * width + o;
        gx[i] += w[c] * inv[c] * (g[i] - mg[c] - (x[i] - mean[c]) * inv[c] * mgx[c]);
      });
    }
  }

 private:
  int channels_ = 0;
  size_t pixels_ = 1;
  float fraction_ = 0.9f;
  bool fusedIntoInput_ = false;  // fuseIntoInput(): testing only aliases the input
  bool hasGlobalFlag_ = false, globalFlag_ = false, useGlobal_ = false;
  Matrix mean_, invStd_;  // per channel, of the forward pass
  Matrix gradMeans_;  // [2, channels]: per channel, the means of g and of g * xhat over the batch
};

// cmrnorm's pixels per kernel index: each index loops over the channels of its window, and
// the CPU vectorises across its pixels.
constexpr int kPixelsPerIndex = 16;

class CMRNormLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "norm_conf");
    std::string t = c.getString("norm_type");
    PADDLE_ENFORCE(t == "cmrnorm-projection", ConfigError, "norm_conf.norm_type '", t,
                   "' is not supported (cmrnorm-projection)");
    shape_ = image::readImage(c);
    window_ = static_cast<int>(c.getInt("size"));
    scale_ = static_cast<float>(c.getDouble("scale"));
    pow_ = static_cast<float>(c.getDouble("pow"));
    PADDLE_ENFORCE(window_ > 0 && shape_.channels > 0 && shape_.width > 0, ConfigError,
                   "norm_conf needs positive size, channels and img_size");
    checkInputSize(0, shape_.size());
    PADDLE_ENFORCE(size_ == shape_.size(), ConfigError, "size ", size_, " should equal the input size ",
                   shape_.size());
    denoms_.setDevice(useGpu_);
    ratio_.setDevice(useGpu_);
  }

  // d = 1 + scale * sum_{window} x^2, y = x * d^-pow: one index per kPixelsPerIndex values
  // of a channel.
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    resetOutput(rows, size_);
    denoms_.resize(rows, size_);
    const int C = shape_.channels, start = -((window_ - 1) / 2), end = start + window_;
    const size_t pix = static_cast<size_t>(shape_.height) * shape_.width, width = size_;
    const float scale = scale_, power = pow_;
    const float* x = in.value.data();
    float* d = denoms_.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows * C, (pix + kPixelsPerIndex - 1) / kPixelsPerIndex, [=] PD_HD(size_t r, size_t chunk) {
      const int c = static_cast<int>(r % C);
      const int lo = c + start > 0 ? c + start : 0, hi = c + end < C ? c + end : C;  // the window's channels
      const size_t p0 = chunk * kPixelsPerIndex, i0 = r * pix + p0;  // i = n*width + c*pix + p
      const int lanes = pix - p0 < kPixelsPerIndex ? static_cast<int>(pix - p0) : kPixelsPerIndex;
      const float* xn = x + r / C * width + p0;
      float den[kPixelsPerIndex];
      for (int t = 0; t < lanes; ++t) den[t] = 1.0f;
      for (int cs = lo; cs < hi; ++cs)
        for (int t = 0; t < lanes; ++t) den[t] += scale * xn[cs * pix + t] * xn[cs * pix + t];
      for (int t = 0; t < lanes; ++t) {
        d[i0 + t] = den[t];
        y[i0 + t] = x[i0 + t] * std::pow(den[t], -power);
      }
    });
    output_.frameHeight = shape_.height;
    output_.frameWidth = shape_.width;
    forwardActivation();
  }

  // dx_j = g_j d_j^-p - 2 p scale x_j sum_{c: j in window(c)} g_c y_c / d_c: ratio_ = g y / d
  // first, then one index per kPixelsPerIndex values of a channel gathers over the channels
  // whose windows hold it.
  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const size_t rows = output_.grad.height();
    const int C = shape_.channels, start = -((window_ - 1) / 2), end = start + window_;
    const size_t pix = static_cast<size_t>(shape_.height) * shape_.width, width = size_;
    const float power = pow_, k = -2.0f * pow_ * scale_;
    const float* x = in.value.data();
    const float* y = output_.value.data();
    const float* g = output_.grad.data();
    const float* d = denoms_.data();
    float* gx = in.grad.data();
    ratio_.resize(rows, size_);
    float* ratio = ratio_.data();
    forEach2(useGpu_, rows, width, [=] PD_HD(size_t n, size_t j) {
      const size_t i = n * width + j;
      ratio[i] = g[i] * y[i] / d[i];
    });
    forEach2(useGpu_, rows * C, (pix + kPixelsPerIndex - 1) / kPixelsPerIndex, [=] PD_HD(size_t r, size_t chunk) {
      const int c = static_cast<int>(r % C);
      // input channel c is in the windows of channels c - end + 1 .. c - start
      const int lo = c - end + 1 > 0 ? c - end + 1 : 0, hi = c - start + 1 < C ? c - start + 1 : C;
      const size_t p0 = chunk * kPixelsPerIndex, i0 = r * pix + p0;
      const int lanes = pix - p0 < kPixelsPerIndex ? static_cast<int>(pix - p0) : kPixelsPerIndex;
      const float* rn = ratio + r / C * width + p0;
      float acc[kPixelsPerIndex];
      for (int t = 0; t < lanes; ++t) acc[t] = gx[i0 + t] + g[i0 + t] * std::pow(d[i0 + t], -power);
      for (int o = hi - 1; o >= lo; --o)
        for (int t = 0; t < lanes; ++t) acc[t] += k * x[i0 + t] * rn[o * pix + t];
      for (int t = 0; t < lanes; ++t) gx[i0 + t] = acc[t];
    });
  }

 private:
  image::ImageShape shape_;
  int window_ = 0;  // channels per window (norm_conf.size)
  float scale_ = 0, pow_ = 0.75f;
  Matrix denoms_, ratio_;
};

class DataNormLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    PADDLE_ENFORCE(weight(0) && weight(0)->size() == 5 * size_ && weight(0)->isStatic(), ConfigError,
                   "data_norm layer '", name_, "' needs a static parameter of 5 x ", size_, " values");
    const std::string s = config_.getString("data_norm_strategy");
    if (s == "z-score") {
      shiftRow_ = 2, scaleRow_ = 3;
    } else if (s == "min-max") {
      shiftRow_ = 0, scaleRow_ = 1;
    } else if (s == "decimal-scaling") {
      shiftRow_ = -1, scaleRow_ = 4;
    } else {
      throw ConfigError(str("data_norm layer '", name_, "': unknown data_norm_strategy '", s,
                            "' (z-score, min-max or decimal-scaling)"));
    }
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    resetOutput(in.batchSize(), size_);
    const float* w = weight(0)->value().data();
    const float* shift = shiftRow_ < 0 ? nullptr : w + shiftRow_ * size_;
    const float* scale = w + scaleRow_ * size_;
    const float* x = in.value.data();
    float* y = output_.value.data();
    const size_t n = size_;
    forEach2(useGpu_, in.batchSize(), n, [=] PD_HD(size_t r, size_t j) {
      y[r * n + j] = (x[r * n + j] - (shift ? shift[j] : 0.0f)) * scale[j];
    });
    output_.shareSequenceOf(in);
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    Matrix& gin = input(0).grad;
    if (gin.empty()) return;
    const float* scale = weight(0)->value().data() + scaleRow_ * size_;
    const float* gy = output_.grad.data();
    float* gx = gin.data();
    const size_t n = size_;
    forEach2(useGpu_, gin.height(), n, [=] PD_HD(size_t r, size_t j) { gx[r * n + j] += gy[r * n + j] * scale[j]; });
  }

 private:
  int shiftRow_ = 2, scaleRow_ = 3;  // rows of the parameter; -1: no shift
};
}  // namespace

REGISTER_LAYER("batch_norm", BatchNormLayer);
REGISTER_LAYER("cudnn_batch_norm", BatchNormLayer);
REGISTER_LAYER("norm", CMRNormLayer);
REGISTER_LAYER("data_norm", DataNormLayer);

}  // namespace paddle
