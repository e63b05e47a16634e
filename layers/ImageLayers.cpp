// Image reshaping layers (forEach kernels: CPU loops or GPU grids):
//   "bilinear_interp": resizes every channel to out_size_y x out_size_x with corner-aligned
//                      bilinear interpolation (ratio = (in-1)/(out-1)).
//   "blockexpand":     im2col as a sequence: each sample becomes outH*outW rows of
//                      C*block_y*block_x values (one block each, channel-major).
//   "rotate":          turns every channel (height x width, from the layer's height/width)
//                      90 degrees clockwise: out[j][H-1-i] = in[i][j], a width x height image.
//   "pad":             zero-pads channels, rows and columns (pad_conf.pad_c/pad_h/pad_w,
//                      [before, after] each).
//   "priorbox":        SSD's prior boxes for a feature map (input 0) over an image (input 1):
//                      one row, per feature-map cell and prior [xmin, ymin, xmax, ymax] in
//                      [0, 1] then the 4 variances (v1's order and quirks); no gradient.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/ImageUtils.h"
#include "layers/Layer.h"

namespace paddle {

namespace {
// dst [cols, rows] = src [rows, cols] transposed (the CPU writes dst in order).
void transpose(bool gpu, const float* src, size_t rows, size_t cols, float* dst) {
  forEach2(gpu, cols, rows, [=] PD_HD(size_t c, size_t r) { dst[c * rows + r] = src[r * cols + c]; });
}

class BilinearInterpLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "bilinear_interp_conf");
    in_ = image::readImage(c["image_conf"]);
    outW_ = static_cast<int>(c.getInt("out_size_x"));
    outH_ = static_cast<int>(c.getInt("out_size_y"));
    PADDLE_ENFORCE(in_.channels > 0 && in_.width > 0 && outW_ > 0 && outH_ > 0, ConfigError,
                   "bilinear_interp_conf needs image_conf channels/img_size and positive out_size_x/out_size_y");
    checkInputSize(0, in_.size());
    PADDLE_ENFORCE(size_ == static_cast<size_t>(in_.channels) * outH_ * outW_, ConfigError, "size ", size_,
                   " should be channels * out_size_y * out_size_x = ", in_.channels * outH_ * outW_);
  }

  // Output pixel (i, j) of a channel interpolates input pixels a, a + dx, a + dy and
  // a + dy + dx with weights wy2*wx2, wy2*wx, wy*wx2 and wy*wx.
  struct Taps {
    int a, dx, dy;
    float wy, wy2, wx, wx2;
  };
  struct Grid {  // what the kernels need to compute the taps
    int inH, inW, outH, outW;
    float rh, rw;
  };
  Grid grid() const {
    return {in_.height, in_.width, outH_, outW_,
            outH_ > 1 ? static_cast<float>(in_.height - 1) / (outH_ - 1) : 0.0f,
            outW_ > 1 ? static_cast<float>(in_.width - 1) / (outW_ - 1) : 0.0f};
  }
  PD_HD static Taps taps(const Grid& g, int i, int j) {
    Taps t;
    const float hr = g.rh * i, wr = g.rw * j;
    const int h = static_cast<int>(hr), w = static_cast<int>(wr);
    t.a = h * g.inW + w;
    t.dy = h < g.inH - 1 ? g.inW : 0;
    t.dx = w < g.inW - 1 ? 1 : 0;
    t.wy = hr - h;
    t.wy2 = 1.0f - t.wy;
    t.wx = wr - w;
    t.wx2 = 1.0f - t.wx;
    return t;
  }

  // One index per output pixel: it gathers its four taps.
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    resetOutput(rows, size_);
    const Grid g = grid();
    const size_t inPix = static_cast<size_t>(g.inH) * g.inW;
    const size_t planes = static_cast<size_t>(in_.channels) * g.outH;  // (channel, output row) pairs per sample
    const size_t inWidth = in.value.width();
    const float* x = in.value.data();
    float* y = output_.value.data();
    forEach2(useGpu_, rows * planes, g.outW, [=] PD_HD(size_t r, size_t j) {
      const size_t n = r / planes;
      const int plane = static_cast<int>(r - n * planes);  // c*outH + i
      const Taps t = taps(g, plane % g.outH, static_cast<int>(j));
      const float* xc = x + n * inWidth + plane / g.outH * inPix;
      float v = t.wy2 * t.wx2 * xc[t.a];
      v += t.wy2 * t.wx * xc[t.a + t.dx];
      v += t.wy * t.wx2 * xc[t.a + t.dy];
      v += t.wy * t.wx * xc[t.a + t.dy + t.dx];
      y[r * g.outW + j] = v;  // = n*size + (c*outH + i)*outW + j
    });
    output_.frameHeight = outH_;
    output_.frameWidth = outW_;
    forwardActivation();
  }

  // One index per output pixel spreads its gradient over its taps (atomic adds: neighbouring
  // outputs share taps).
  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const Grid g = grid();
    const size_t inPix = static_cast<size_t>(g.inH) * g.inW;
    const size_t planes = static_cast<size_t>(in_.channels) * g.outH;
    const size_t inWidth = in.grad.width();
    const float* gy = output_.grad.data();
    float* gx = in.grad.data();
    forEach2(useGpu_, output_.grad.height() * planes, g.outW, [=] PD_HD(size_t r, size_t j) {
      const size_t n = r / planes;
      const int plane = static_cast<int>(r - n * planes);  // c*outH + i
      const Taps t = taps(g, plane % g.outH, static_cast<int>(j));
      float* gc = gx + n * inWidth + plane / g.outH * inPix;
      const float d = gy[r * g.outW + j];
      atomicAddF(gc + t.a, t.wy2 * t.wx2 * d);
      atomicAddF(gc + t.a + t.dx, t.wy2 * t.wx * d);
      atomicAddF(gc + t.a + t.dy, t.wy * t.wx2 * d);
      atomicAddF(gc + t.a + t.dy + t.dx, t.wy * t.wx * d);
    });
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
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "block_expand_conf");
    C_ = static_cast<int>(c.getInt("channels"));
    bx_ = static_cast<int>(c.getInt("block_x"));
    by_ = static_cast<int>(c.getInt("block_y"));
    sx_ = static_cast<int>(c.getInt("stride_x"));
    sy_ = static_cast<int>(c.getInt("stride_y"));
    px_ = static_cast<int>(c.getInt("padding_x"));
    py_ = static_cast<int>(c.getInt("padding_y"));
    cfgW_ = static_cast<int>(c.getInt("img_size_x"));
    cfgH_ = static_cast<int>(c.getInt("img_size_y"));
    PADDLE_ENFORCE(C_ > 0 && bx_ > 0 && by_ > 0 && sx_ > 0 && sy_ > 0, ConfigError,
                   "block_expand_conf needs positive channels, block_x/y and stride_x/y");
    PADDLE_ENFORCE(size_ == static_cast<size_t>(C_) * bx_ * by_, ConfigError, "size ", size_,
                   " should be channels * block_y * block_x = ", C_ * bx_ * by_);
    PADDLE_ENFORCE(inputs_[0]->size() % C_ == 0, ConfigError, "input size ", inputs_[0]->size(),
                   " is not a multiple of channels ", C_);
    col_.setDevice(useGpu_);
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

  // Output row (n*blocks + b) holds the unfolded block b of sample n: im2col of a chunk of
  // samples into col_ [size, chunk*blocks], transposed into the output rows.
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    geometry(in);
    const size_t samples = in.batchSize(), blocks = static_cast<size_t>(outH_) * outW_;
    resetOutput(samples * blocks, size_);
    const size_t S = chunkSize(blocks);
    for (size_t s0 = 0; s0 < samples; s0 += S) {
      const size_t cs = std::min(S, samples - s0);
      col_.resize(size_, cs * blocks);
      image::im2colBatch(useGpu_, in.value.row(s0), in.value.width(), cs, patches(), col_.data());
      transpose(useGpu_, col_.data(), size_, cs * blocks, output_.value.row(s0 * blocks));
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
    const size_t samples = in.grad.height(), blocks = static_cast<size_t>(outH_) * outW_;
    const size_t S = chunkSize(blocks);
    for (size_t s0 = 0; s0 < samples; s0 += S) {
      const size_t cs = std::min(S, samples - s0);
      col_.resize(size_, cs * blocks);
      transpose(useGpu_, output_.grad.row(s0 * blocks), cs * blocks, size_, col_.data());
      image::col2imBatch(useGpu_, col_.data(), 0, cs, patches(), in.grad.row(s0), in.grad.width(), true);
    }
  }

  // Samples per chunk: col_ about cache-sized on the CPU (512 KB), bounded on the GPU (128 MB).
  size_t chunkSize(size_t blocks) const {
    const size_t floats = useGpu_ ? size_t(1) << 25 : size_t(1) << 17;
    return std::max<size_t>(1, floats / std::max<size_t>(size_ * blocks, 1));
  }
  image::Patches patches() const { return {C_, H_, W_, by_, bx_, sy_, sx_, py_, px_, outH_, outW_}; }

 private:
  int C_ = 0, bx_ = 0, by_ = 0, sx_ = 1, sy_ = 1, px_ = 0, py_ = 0, cfgW_ = 0, cfgH_ = 0;
  int H_ = 0, W_ = 0, outH_ = 0, outW_ = 0;
  Matrix col_;      // [size, chunk*blocks]: a chunk of samples unfolded
  IVector starts_;  // host memory, as sequence starts are
};

// Output offset o of a clockwise-rotated H x W plane (output row j = o / H is input column
// j, output column i = o % H is input row H-1-i) -> its input offset.
PD_HD inline size_t rotationSource(size_t o, size_t H, size_t W) { return (H - 1 - o % H) * W + o / H; }

class RotateLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    checkInputSize(0, size_);
    H_ = static_cast<size_t>(config_.getInt("height"));
    W_ = static_cast<size_t>(config_.getInt("width"));
    PADDLE_ENFORCE(H_ > 0 && W_ > 0 && size_ % (H_ * W_) == 0, ConfigError, "rotate layer '", name_,
                   "': height ", H_, " x width ", W_, " must divide the size ", size_);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    resetOutput(in.batchSize(), size_);
    const float* x = in.value.data();
    float* y = output_.value.data();
    const size_t H = H_, W = W_, plane = H_ * W_;
    // one index per output value: plane p, output offset o
    forEach2(useGpu_, in.batchSize() * (size_ / plane), plane, [=] PD_HD(size_t p, size_t o) {
      y[p * plane + o] = x[p * plane + rotationSource(o, H, W)];
    });
    output_.shareSequenceOf(in);
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    Matrix& gin = input(0).grad;
    if (gin.empty()) return;
    const float* gy = output_.grad.data();
    float* gx = gin.data();
    const size_t H = H_, W = W_, plane = H_ * W_;
    forEach2(useGpu_, gin.height() * (size_ / plane), plane, [=] PD_HD(size_t p, size_t o) {
      gx[p * plane + rotationSource(o, H, W)] += gy[p * plane + o];
    });
  }

 private:
  size_t H_ = 0, W_ = 0;
};

// Input value k of a sample (channel, row, column of an H x W image) -> its place in the
// padded oH x oW output, shifted by the leading pads. (A namespace-level type: nvcc refuses
// private member types in what device lambdas capture.)
struct PadMap {
  int H, W, oH, oW, pc, ph, pw;
  PD_HD size_t out(size_t k) const {
    const int c = static_cast<int>(k) / (H * W), h = static_cast<int>(k) / W % H, w = static_cast<int>(k) % W;
    return (static_cast<size_t>(c + pc) * oH + h + ph) * oW + w + pw;
  }
};

class PadLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "pad_conf");
    in_ = image::readImage(c["image_conf"]);
    const std::vector<int64_t> pc = c.getInts("pad_c"), ph = c.getInts("pad_h"), pw = c.getInts("pad_w");
    PADDLE_ENFORCE(pc.size() == 2 && ph.size() == 2 && pw.size() == 2, ConfigError, "pad layer '", name_,
                   "': pad_c, pad_h and pad_w need [before, after] each");
    const int outC = in_.channels + static_cast<int>(pc[0] + pc[1]);
    map_ = {in_.height, in_.width, in_.height + static_cast<int>(ph[0] + ph[1]),
            in_.width + static_cast<int>(pw[0] + pw[1]), static_cast<int>(pc[0]), static_cast<int>(ph[0]),
            static_cast<int>(pw[0])};
    checkInputSize(0, in_.size());
    PADDLE_ENFORCE(size_ == static_cast<size_t>(outC) * map_.oH * map_.oW, ConfigError, "pad layer '", name_,
                   "': size ", size_, " should be ", outC, " x ", map_.oH, " x ", map_.oW);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    resetOutput(in.batchSize(), size_);
    output_.value.zero();  // the padding
    const float* x = in.value.data();
    float* y = output_.value.data();
    const size_t inSize = in_.size(), outSize = size_;
    const PadMap m = map_;
    forEach2(useGpu_, in.batchSize(), inSize, [=] PD_HD(size_t n, size_t k) {
      y[n * outSize + m.out(k)] = x[n * inSize + k];
    });
    output_.shareSequenceOf(in);
    forwardActivation();
  }
  void backward() override {
    backwardActivation();
    Matrix& gin = input(0).grad;
    if (gin.empty()) return;
    const float* gy = output_.grad.data();
    float* gx = gin.data();
    const size_t inSize = in_.size(), outSize = size_;
    const PadMap m = map_;
    forEach2(useGpu_, gin.height(), inSize, [=] PD_HD(size_t n, size_t k) {
      gx[n * inSize + k] += gy[n * outSize + m.out(k)];
    });
  }

 private:
  image::ImageShape in_;
  PadMap map_{};
};

class PriorBoxLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(2, 2);
    const Json& c = inputConf(0, "priorbox_conf");
    for (int64_t v : c.getInts("min_size")) minSizes_.push_back(static_cast<float>(v));
    for (int64_t v : c.getInts("max_size")) maxSizes_.push_back(static_cast<float>(v));
    for (const Json& v : c["aspect_ratio"].items()) ratios_.push_back(static_cast<float>(v.asDouble()));
    for (const Json& v : c["variance"].items()) variance_.push_back(static_cast<float>(v.asDouble()));
    PADDLE_ENFORCE(!minSizes_.empty() && variance_.size() == 4, ConfigError, "priorbox layer '", name_,
                   "' needs min_size and 4 variances");
    PADDLE_ENFORCE(maxSizes_.empty() || maxSizes_.size() == minSizes_.size(), ConfigError, "priorbox layer '",
                   name_, "': max_size needs as many values as min_size");
    const size_t given = ratios_.size();
    for (size_t i = 0; i < given; ++i) ratios_.push_back(1.0f / ratios_[i]);  // flipped
    ratios_.push_back(1.0f);
    priors_ = ratios_.size() + (maxSizes_.empty() ? 0 : 1);
  }
  void forward(PassType pass) override {
    pass_ = pass;
    size_t fh, fw, ih, iw;
    frameOf(0, fh, fw);
    frameOf(1, ih, iw);
    const size_t dim = fh * fw * priors_ * 8;
    PADDLE_ENFORCE(dim == size_, ConfigError, "priorbox layer '", name_, "': a ", fh, "x", fw, " feature map with ",
                   priors_, " priors per cell gives ", dim, " values, but the layer size is ", size_);
    std::vector<float> out(dim, 0.0f);
    size_t k = 0;
    auto box = [&](float cx, float cy, float bw, float bh) {
      PADDLE_ENFORCE(k + 8 <= dim, ConfigError, "priorbox layer '", name_, "': more boxes than its size holds");
      const float v[4] = {(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw, (cy + bh / 2) / ih};
      for (float x : v) out[k++] = std::min(std::max(x, 0.0f), 1.0f);
      for (float x : variance_) out[k++] = x;
    };
    const float stepW = static_cast<float>(iw) / fw, stepH = static_cast<float>(ih) / fh;
    for (size_t h = 0; h < fh; ++h) {
      for (size_t w = 0; w < fw; ++w) {
        const float cx = (w + 0.5f) * stepW, cy = (h + 0.5f) * stepH;
        float minSize = 0;
        for (size_t s = 0; s < minSizes_.size(); ++s) {
          minSize = minSizes_[s];
          box(cx, cy, minSize, minSize);
          // as in v1: every max size after every min size (one pair each in practice)
          for (float maxSize : maxSizes_) {
            const float side = std::floor(std::sqrt(minSize * maxSize));
            box(cx, cy, side, side);
          }
        }
        for (float r : ratios_) {  // with the last min size, as v1 does
          if (std::fabs(r - 1.0f) < 1e-6f) continue;
          box(cx, cy, minSize * std::sqrt(r), minSize / std::sqrt(r));
        }
      }
    }
    output_.value.setDevice(useGpu_);
    output_.value.copyFromHost(out.data(), 1, dim);
  }
  void backward() override {}  // prior boxes depend on no parameter or input value

 private:
  // An input's frame height/width: from the batch, else from the input layer's config.
  void frameOf(size_t i, size_t& h, size_t& w) {
    const Argument& a = input(i);
    h = a.frameHeight, w = a.frameWidth;
    if (!h || !w) {
      h = static_cast<size_t>(inputs_[i]->config().getInt("height"));
      w = static_cast<size_t>(inputs_[i]->config().getInt("width"));
    }
    PADDLE_ENFORCE(h > 0 && w > 0, ConfigError, "priorbox layer '", name_, "': input '", inputs_[i]->name(),
                   "' has no image height/width");
  }

  std::vector<float> minSizes_, maxSizes_, ratios_, variance_;
  size_t priors_ = 0;
};
}  // namespace

REGISTER_LAYER("bilinear_interp", BilinearInterpLayer);
REGISTER_LAYER("blockexpand", BlockExpandLayer);
REGISTER_LAYER("rotate", RotateLayer);
REGISTER_LAYER("pad", PadLayer);
REGISTER_LAYER("priorbox", PriorBoxLayer);

}  // namespace paddle
