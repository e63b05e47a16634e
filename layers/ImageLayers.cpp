// Image reshaping layers (CPU):
//   "bilinear_interp": resizes every channel to out_size_y x out_size_x with corner-aligned
//                      bilinear interpolation (ratio = (in-1)/(out-1)).
//   "blockexpand":     im2col as a sequence: each sample becomes outH*outW rows of
//                      C*block_y*block_x values (one block each, channel-major).
#include <cmath>

#include "Errors.h"
#include "ImageUtils.h"
#include "Layer.h"

namespace paddle {

namespace {
class BilinearInterpLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "bilinear_interp_conf");
    in_ = image::readImage(c["image_conf"]);
    outW_ = static_cast<int>(c.getInt("out_size_x", 0));
    outH_ = static_cast<int>(c.getInt("out_size_y", 0));
    PADDLE_ENFORCE(in_.channels > 0 && in_.width > 0 && outW_ > 0 && outH_ > 0, ConfigError,
                   "bilinear_interp_conf needs image_conf channels/img_size and positive out_size_x/out_size_y");
    checkInputSize(0, in_.size());
    PADDLE_ENFORCE(size_ == static_cast<size_t>(in_.channels) * outH_ * outW_, ConfigError, "size ", size_,
                   " should be channels * out_size_y * out_size_x = ", in_.channels * outH_ * outW_);
  }

  // Calls f(outIndex, inIndex, weight) for the four taps of every output pixel of one channel.
  template <typename F>
  void taps(F f) const {
    const float rh = outH_ > 1 ? static_cast<float>(in_.height - 1) / (outH_ - 1) : 0.0f;
    const float rw = outW_ > 1 ? static_cast<float>(in_.width - 1) / (outW_ - 1) : 0.0f;
    for (int i = 0; i < outH_; ++i) {
      const float hr = rh * i;
      const int h = static_cast<int>(hr);
      const int hp = h < in_.height - 1 ? 1 : 0;
      const float hl = hr - h, hl2 = 1.0f - hl;
      for (int j = 0; j < outW_; ++j) {
        const float wr = rw * j;
        const int w = static_cast<int>(wr);
        const int wp = w < in_.width - 1 ? 1 : 0;
        const float wl = wr - w, wl2 = 1.0f - wl;
        const int o = i * outW_ + j, a = h * in_.width + w;
        f(o, a, hl2 * wl2);
        f(o, a + wp, hl2 * wl);
        f(o, a + hp * in_.width, hl * wl2);
        f(o, a + hp * in_.width + wp, hl * wl);
      }
    }
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    resetOutput(rows, size_);
    output_.value.zero();
    const size_t inPix = static_cast<size_t>(in_.height) * in_.width, outPix = static_cast<size_t>(outH_) * outW_;
    for (size_t n = 0; n < rows; ++n) {
      for (int c = 0; c < in_.channels; ++c) {
        const float* x = in.value.row(n) + c * inPix;
        float* y = output_.value.row(n) + c * outPix;
        taps([&](int o, int a, float wgt) { y[o] += wgt * x[a]; });
      }
    }
    output_.frameHeight = outH_;
    output_.frameWidth = outW_;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const size_t inPix = static_cast<size_t>(in_.height) * in_.width, outPix = static_cast<size_t>(outH_) * outW_;
    for (size_t n = 0; n < output_.grad.height(); ++n) {
      for (int c = 0; c < in_.channels; ++c) {
        const float* g = output_.grad.row(n) + c * outPix;
        float* gx = in.grad.row(n) + c * inPix;
        taps([&](int o, int a, float wgt) { gx[a] += wgt * g[o]; });
      }
    }
  }

 private:
  image::ImageShape in_;
  int outH_ = 0, outW_ = 0;
};

class BlockExpandLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "block_expand_conf");
    C_ = static_cast<int>(c.getInt("channels", 0));
    bx_ = static_cast<int>(c.getInt("block_x", 0));
    by_ = static_cast<int>(c.getInt("block_y", 0));
    sx_ = static_cast<int>(c.getInt("stride_x", 1));
    sy_ = static_cast<int>(c.getInt("stride_y", 1));
    px_ = static_cast<int>(c.getInt("padding_x", 0));
    py_ = static_cast<int>(c.getInt("padding_y", 0));
    cfgW_ = static_cast<int>(c.getInt("img_size_x", 0));
    cfgH_ = static_cast<int>(c.getInt("img_size_y", 0));
    PADDLE_ENFORCE(C_ > 0 && bx_ > 0 && by_ > 0 && sx_ > 0 && sy_ > 0, ConfigError,
                   "block_expand_conf needs positive channels, block_x/y and stride_x/y");
    PADDLE_ENFORCE(size_ == static_cast<size_t>(C_) * bx_ * by_, ConfigError, "size ", size_,
                   " should be channels * block_y * block_x = ", C_ * bx_ * by_);
    PADDLE_ENFORCE(inputs_[0]->size() % C_ == 0, ConfigError, "input size ", inputs_[0]->size(),
                   " is not a multiple of channels ", C_);
  }

  // Image geometry: the input's frame if known, else the config, else a square image.
  void geometry(const Argument& in) {
    H_ = in.frameHeight ? static_cast<int>(in.frameHeight) : cfgH_;
    W_ = in.frameWidth ? static_cast<int>(in.frameWidth) : cfgW_;
    size_t pix = inputs_[0]->size() / C_;
    if (!H_ || !W_) {
      W_ = static_cast<int>(std::lround(std::sqrt(static_cast<double>(pix))));
      H_ = W_ ? static_cast<int>(pix / W_) : 0;
    }
    PADDLE_ENFORCE(static_cast<size_t>(H_) * W_ == pix, DataError, "layer '", name_, "': a ", H_, "x", W_,
                   " image with ", C_, " channels does not match the input size ", inputs_[0]->size());
    outH_ = 1 + (H_ + 2 * py_ - by_ + sy_ - 1) / sy_;
    outW_ = 1 + (W_ + 2 * px_ - bx_ + sx_ - 1) / sx_;
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    geometry(in);
    const size_t samples = in.batchSize(), blocks = static_cast<size_t>(outH_) * outW_;
    resetOutput(samples * blocks, size_);
    col_.resize(size_, blocks);
    for (size_t n = 0; n < samples; ++n) {
      image::im2col(in.value.row(n), C_, H_, W_, by_, bx_, sy_, sx_, py_, px_, outH_, outW_, col_.data());
      for (size_t b = 0; b < blocks; ++b) {  // transpose: one row per block
        float* y = output_.value.row(n * blocks + b);
        for (size_t k = 0; k < size_; ++k) y[k] = col_.data()[k * blocks + b];
      }
    }
    starts_.resize(1, samples + 1);
    for (size_t n = 0; n <= samples; ++n) starts_.data()[n] = static_cast<int>(n * blocks);
    output_.seqStarts = starts_;
    output_.subSeqStarts = IVector();
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const size_t blocks = static_cast<size_t>(outH_) * outW_;
    for (size_t n = 0; n < in.grad.height(); ++n) {
      for (size_t b = 0; b < blocks; ++b) {
        const float* g = output_.grad.row(n * blocks + b);
        for (size_t k = 0; k < size_; ++k) col_.data()[k * blocks + b] = g[k];
      }
      image::col2im(col_.data(), C_, H_, W_, by_, bx_, sy_, sx_, py_, px_, outH_, outW_, in.grad.row(n));
    }
  }

 private:
  int C_ = 0, bx_ = 0, by_ = 0, sx_ = 1, sy_ = 1, px_ = 0, py_ = 0, cfgW_ = 0, cfgH_ = 0;
  int H_ = 0, W_ = 0, outH_ = 0, outW_ = 0;
  Matrix col_;
  IVector starts_;
};
}  // namespace

REGISTER_LAYER("bilinear_interp", BilinearInterpLayer);
REGISTER_LAYER("blockexpand", BlockExpandLayer);

}  // namespace paddle
