// Normalisation family (CPU):
//   "batch_norm" (and "cudnn_batch_norm"): per channel, y = w0 * (x - mean) / sqrt(var + 1e-5) + bias.
//       Training uses the batch's statistics (over samples and pixels; var = E[x^2] - E[x]^2)
//       and updates the static moving averages w1 (mean) and w2 (var):
//       m = m * fraction + batch * (1 - fraction). Testing, or use_global_stats, uses w1/w2.
//       Gradient checks (PASS_GC) use batch statistics without touching w1/w2.
//   "norm" with norm_type cmrnorm-projection: across-channel local response norm,
//       y = x * (1 + scale * sum_{window} x^2)^(-pow), window [c - (size-1)/2, c + size/2].
#include <algorithm>
#include <cmath>

#include "Errors.h"
#include "ImageUtils.h"
#include "Layer.h"

namespace paddle {

namespace {
class BatchNormLayer : public Layer {
 public:
  using Layer::Layer;
  static constexpr float kEps = 1e-5f;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
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
    fraction_ = static_cast<float>(config_.getDouble("moving_average_fraction", 0.9));
    hasGlobalFlag_ = config_.has("use_global_stats");
    globalFlag_ = config_.getBool("use_global_stats", false);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    PADDLE_ENFORCE(in.value.width() == size_, DataError, "layer '", name_, "': input is ", shapeStr(in.value),
                   ", expected width ", size_);
    resetOutput(rows, size_);
    useGlobal_ = hasGlobalFlag_ ? globalFlag_ : pass == PASS_TEST;
    mean_.resize(1, channels_);
    invStd_.resize(1, channels_);
    float* mean = mean_.data();
    float* inv = invStd_.data();
    if (useGlobal_) {
      const float* mm = weight(1)->value().data();
      const float* mv = weight(2)->value().data();
      for (int c = 0; c < channels_; ++c) {
        mean[c] = mm[c];
        inv[c] = 1.0f / std::sqrt(std::max(mv[c], 0.0f) + kEps);
      }
    } else {
      PADDLE_ENFORCE(rows > 0, DataError, "layer '", name_, "': empty batch");
      const double m = static_cast<double>(rows) * pixels_;
      std::vector<double>& s1 = sum1_;
      std::vector<double>& s2 = sum2_;
      s1.assign(channels_, 0.0);
      s2.assign(channels_, 0.0);
      for (size_t n = 0; n < rows; ++n) {
        const float* x = in.value.row(n);
        for (int c = 0; c < channels_; ++c) {
          const float* __restrict xc = x + c * pixels_;
          double a = 0, b = 0;
          for (size_t p = 0; p < pixels_; ++p) a += xc[p], b += static_cast<double>(xc[p]) * xc[p];
          s1[c] += a;
          s2[c] += b;
        }
      }
      float* mm = weight(1)->value().data();
      float* mv = weight(2)->value().data();
      for (int c = 0; c < channels_; ++c) {
        double mu = s1[c] / m;
        double var = std::max(s2[c] / m - mu * mu, 0.0);
        mean[c] = static_cast<float>(mu);
        inv[c] = static_cast<float>(1.0 / std::sqrt(var + kEps));
        if (pass == PASS_TRAIN) {
          mm[c] = mm[c] * fraction_ + static_cast<float>(mu) * (1 - fraction_);
          mv[c] = mv[c] * fraction_ + static_cast<float>(var) * (1 - fraction_);
        }
      }
    }
    xhat_.resize(rows, size_);
    const float* w = weight(0)->value().data();
    const float* b = bias_ ? bias_->value().data() : nullptr;
    for (size_t n = 0; n < rows; ++n) {
      const float* x = in.value.row(n);
      float* xh = xhat_.row(n);
      float* y = output_.value.row(n);
      for (int c = 0; c < channels_; ++c) {
        const float mu = mean[c], is = inv[c], wc = w[c], bc = b ? b[c] : 0.0f;
        for (size_t p = 0, o = c * pixels_; p < pixels_; ++p, ++o) {
          xh[o] = (x[o] - mu) * is;
          y[o] = wc * xh[o] + bc;
        }
      }
    }
    output_.shareSequenceOf(in);
    output_.frameHeight = in.frameHeight;
    output_.frameWidth = in.frameWidth;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    const size_t rows = g.height();
    sum1_.assign(channels_, 0.0);  // sum g
    sum2_.assign(channels_, 0.0);  // sum g * xhat
    for (size_t n = 0; n < rows; ++n) {
      const float* gr = g.row(n);
      const float* xh = xhat_.row(n);
      for (int c = 0; c < channels_; ++c) {
        double a = 0, b = 0;
        for (size_t p = 0, o = c * pixels_; p < pixels_; ++p, ++o) a += gr[o], b += gr[o] * xh[o];
        sum1_[c] += a;
        sum2_[c] += b;
      }
    }
    if (bias_ && !bias_->isStatic()) {
      for (int c = 0; c < channels_; ++c) bias_->grad().data()[c] += static_cast<float>(sum1_[c]);
    }
    if (!weight(0)->isStatic()) {
      for (int c = 0; c < channels_; ++c) weight(0)->grad().data()[c] += static_cast<float>(sum2_[c]);
    }
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const float* w = weight(0)->value().data();
    const float* inv = invStd_.data();
    const double m = static_cast<double>(rows) * pixels_;
    for (size_t n = 0; n < rows; ++n) {
      const float* gr = g.row(n);
      const float* xh = xhat_.row(n);
      float* gx = in.grad.row(n);
      for (int c = 0; c < channels_; ++c) {
        const float k = w[c] * inv[c];
        if (useGlobal_) {
          for (size_t p = 0, o = c * pixels_; p < pixels_; ++p, ++o) gx[o] += k * gr[o];
        } else {
          const float mg = static_cast<float>(sum1_[c] / m), mgx = static_cast<float>(sum2_[c] / m);
          for (size_t p = 0, o = c * pixels_; p < pixels_; ++p, ++o) gx[o] += k * (gr[o] - mg - xh[o] * mgx);
        }
      }
    }
  }

 private:
  int channels_ = 0;
  size_t pixels_ = 1;
  float fraction_ = 0.9f;
  bool hasGlobalFlag_ = false, globalFlag_ = false, useGlobal_ = false;
  Matrix mean_, invStd_, xhat_;
  std::vector<double> sum1_, sum2_;
};

class CMRNormLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "norm_conf");
    std::string t = c.getString("norm_type", "");
    PADDLE_ENFORCE(t == "cmrnorm-projection", ConfigError, "norm_conf.norm_type '", t,
                   "' is not supported (cmrnorm-projection)");
    shape_ = image::readImage(c);
    size = static_cast<int>(c.getInt("size", 0));
    scale_ = static_cast<float>(c.getDouble("scale", 0));
    pow_ = static_cast<float>(c.getDouble("pow", 0.75));
    PADDLE_ENFORCE(size > 0 && shape_.channels > 0 && shape_.width > 0, ConfigError,
                   "norm_conf needs positive size, channels and img_size");
    checkInputSize(0, shape_.size());
    PADDLE_ENFORCE(size_ == shape_.size(), ConfigError, "size ", size_, " should equal the input size ",
                   shape_.size());
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    resetOutput(rows, size_);
    denoms_.resize(rows, size_);
    const int C = shape_.channels, start = -((size - 1) / 2), end = start + size;
    const size_t pix = static_cast<size_t>(shape_.height) * shape_.width;
    for (size_t n = 0; n < rows; ++n) {
      const float* x = in.value.row(n);
      float* d = denoms_.row(n);
      float* y = output_.value.row(n);
      for (int c = 0; c < C; ++c) {
        float* __restrict dc = d + c * pix;
        for (size_t p = 0; p < pix; ++p) dc[p] = 1.0f;
        for (int s = start; s < end; ++s) {
          if (c + s < 0 || c + s >= C) continue;
          const float* __restrict xs = x + (c + s) * pix;
          for (size_t p = 0; p < pix; ++p) dc[p] += scale_ * xs[p] * xs[p];
        }
      }
      for (size_t j = 0; j < size_; ++j) y[j] = x[j] * std::pow(d[j], -pow_);
    }
    output_.frameHeight = shape_.height;
    output_.frameWidth = shape_.width;
    forwardActivation();
  }

  // dx_j = g_j d_j^-p - 2 p scale x_j sum_{c: j in window(c)} g_c y_c / d_c
  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const int C = shape_.channels, start = -((size - 1) / 2), end = start + size;
    const size_t pix = static_cast<size_t>(shape_.height) * shape_.width;
    ratio_.resize(1, size_);
    for (size_t n = 0; n < output_.grad.height(); ++n) {
      const float* x = in.value.row(n);
      const float* y = output_.value.row(n);
      const float* g = output_.grad.row(n);
      const float* d = denoms_.row(n);
      float* gx = in.grad.row(n);
      float* r = ratio_.data();
      for (size_t j = 0; j < size_; ++j) {
        r[j] = g[j] * y[j] / d[j];
        gx[j] += g[j] * std::pow(d[j], -pow_);
      }
      const float k = -2.0f * pow_ * scale_;
      for (int c = 0; c < C; ++c) {  // input channel c is in the window of channels c - s
        float* __restrict gc = gx + c * pix;
        const float* __restrict xc = x + c * pix;
        for (int s = start; s < end; ++s) {
          int o = c - s;
          if (o < 0 || o >= C) continue;
          const float* __restrict ro = r + o * pix;
          for (size_t p = 0; p < pix; ++p) gc[p] += k * xc[p] * ro[p];
        }
      }
    }
  }

 private:
  image::ImageShape shape_;
  int size = 0;
  float scale_ = 0, pow_ = 0.75f;
  Matrix denoms_, ratio_;
};
}  // namespace

REGISTER_LAYER("batch_norm", BatchNormLayer);
REGISTER_LAYER("cudnn_batch_norm", BatchNormLayer);
REGISTER_LAYER("norm", CMRNormLayer);

}  // namespace paddle
