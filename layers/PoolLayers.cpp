// Image pooling family (CPU):
//   "pool":   max-projection / avg-projection (cudnn-max-pool / cudnn-avg-pool run the
//             same kernels); output sizes come from pool_conf (the parser applies v1's
//             ceil/caffe rule). Max windows are clipped to the image; average divides by
//             the window clipped to image + padding (v1 / caffe convention).
//   "spp":    spatial pyramid pooling, levels 0..h-1 with 2^l x 2^l bins, concatenated.
//   "maxout": max over groups of consecutive channels.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "Errors.h"
#include "ImageUtils.h"
#include "Layer.h"

namespace paddle {

namespace {
struct PoolGeom {
  int C, H, W, sizeY, sizeX, strideY, strideX, padY, padX, outH, outW;
  bool isMax;
  size_t inSize() const { return static_cast<size_t>(C) * H * W; }
  size_t outSize() const { return static_cast<size_t>(C) * outH * outW; }
};

bool parsePoolType(const std::string& t) {
  if (t == "max-projection" || t == "cudnn-max-pool") return true;
  if (t == "avg-projection" || t == "cudnn-avg-pool" || t == "cudnn-avg-incl-pad-pool") return false;
  throw ConfigError(str("pool_type '", t, "' is not supported (max-projection, avg-projection)"));
}

// One sample: in [C, H, W] -> out [C, outH, outW]; idx records each max's input offset.
void poolForward(const PoolGeom& g, const float* __restrict in, float* __restrict out, int* __restrict idx) {
  for (int c = 0; c < g.C; ++c) {
    const float* x = in + static_cast<size_t>(c) * g.H * g.W;
    for (int oy = 0; oy < g.outH; ++oy) {
      for (int ox = 0; ox < g.outW; ++ox) {
        int hs = oy * g.strideY - g.padY, ws = ox * g.strideX - g.padX;
        int he = std::min(hs + g.sizeY, g.H + g.padY), we = std::min(ws + g.sizeX, g.W + g.padX);
        const int poolSize = (he - hs) * (we - ws);
        hs = std::max(hs, 0);
        ws = std::max(ws, 0);
        he = std::min(he, g.H);
        we = std::min(we, g.W);
        const size_t o = (static_cast<size_t>(c) * g.outH + oy) * g.outW + ox;
        if (g.isMax) {
          float m = -FLT_MAX;
          int at = -1;
          for (int y = hs; y < he; ++y)
            for (int xx = ws; xx < we; ++xx)
              if (x[y * g.W + xx] > m) m = x[y * g.W + xx], at = c * g.H * g.W + y * g.W + xx;
          out[o] = at >= 0 ? m : 0.0f;
          idx[o] = at;
        } else {
          float s = 0;
          for (int y = hs; y < he; ++y)
            for (int xx = ws; xx < we; ++xx) s += x[y * g.W + xx];
          out[o] = poolSize > 0 ? s / poolSize : 0.0f;
        }
      }
    }
  }
}

void poolBackward(const PoolGeom& g, const float* __restrict gout, const int* __restrict idx,
                  float* __restrict gin) {
  if (g.isMax) {
    for (size_t o = 0, n = g.outSize(); o < n; ++o)
      if (idx[o] >= 0) gin[idx[o]] += gout[o];
    return;
  }
  for (int c = 0; c < g.C; ++c) {
    float* gx = gin + static_cast<size_t>(c) * g.H * g.W;
    for (int oy = 0; oy < g.outH; ++oy) {
      for (int ox = 0; ox < g.outW; ++ox) {
        int hs = oy * g.strideY - g.padY, ws = ox * g.strideX - g.padX;
        int he = std::min(hs + g.sizeY, g.H + g.padY), we = std::min(ws + g.sizeX, g.W + g.padX);
        const int poolSize = (he - hs) * (we - ws);
        hs = std::max(hs, 0);
        ws = std::max(ws, 0);
        he = std::min(he, g.H);
        we = std::min(we, g.W);
        if (poolSize <= 0) continue;
        const float d = gout[(static_cast<size_t>(c) * g.outH + oy) * g.outW + ox] / poolSize;
        for (int y = hs; y < he; ++y)
          for (int xx = ws; xx < we; ++xx) gx[y * g.W + xx] += d;
      }
    }
  }
}

// Layers made of several poolings of the same input, each writing its own column block.
class PoolingLayerBase : public Layer {
 public:
  using Layer::Layer;

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    PADDLE_ENFORCE(in.value.width() == inputs_[0]->size(), DataError, "layer '", name_, "': input is ",
                   shapeStr(in.value), ", expected width ", inputs_[0]->size());
    resetOutput(rows, size_);
    idx_.resize(rows, size_);
    for (size_t n = 0; n < rows; ++n) {
      size_t off = 0;
      for (const PoolGeom& g : geoms_) {
        poolForward(g, in.value.row(n), output_.value.row(n) + off, idx_.row(n) + off);
        off += g.outSize();
      }
    }
    output_.frameHeight = frameH_;
    output_.frameWidth = frameW_;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    for (size_t n = 0; n < output_.grad.height(); ++n) {
      size_t off = 0;
      for (const PoolGeom& g : geoms_) {
        poolBackward(g, output_.grad.row(n) + off, idx_.row(n) + off, in.grad.row(n));
        off += g.outSize();
      }
    }
  }

 protected:
  void finishInit() {
    size_t total = 0;
    for (const PoolGeom& g : geoms_) total += g.outSize();
    checkInputSize(0, geoms_[0].inSize());
    PADDLE_ENFORCE(total == size_, ConfigError, "pooling output has ", total, " values, but the layer size is ",
                   size_);
  }
  std::vector<PoolGeom> geoms_;
  IVector idx_;
  size_t frameH_ = 0, frameW_ = 0;
};

class PoolLayer : public PoolingLayerBase {
 public:
  using PoolingLayerBase::PoolingLayerBase;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "pool_conf");
    PoolGeom g;
    g.isMax = parsePoolType(c.getString("pool_type", ""));
    g.C = static_cast<int>(c.getInt("channels", 0));
    g.sizeX = static_cast<int>(c.getInt("size_x", 0));
    g.sizeY = static_cast<int>(c.getInt("size_y", g.sizeX));
    g.strideX = static_cast<int>(c.getInt("stride", 1));
    g.strideY = static_cast<int>(c.getInt("stride_y", g.strideX));
    g.padX = static_cast<int>(c.getInt("padding", 0));
    g.padY = static_cast<int>(c.getInt("padding_y", g.padX));
    g.W = static_cast<int>(c.getInt("img_size", 0));
    g.H = static_cast<int>(c.getInt("img_size_y", g.W));
    g.outW = static_cast<int>(c.getInt("output_x", 0));
    g.outH = static_cast<int>(c.getInt("output_y", g.outW));
    PADDLE_ENFORCE(g.C > 0 && g.sizeX > 0 && g.sizeY > 0 && g.strideX > 0 && g.strideY > 0 && g.W > 0 &&
                       g.H > 0 && g.outW > 0 && g.outH > 0,
                   ConfigError, "pool_conf needs positive channels, size_x, stride, img_size and output_x");
    PADDLE_ENFORCE(g.padX < g.sizeX && g.padY < g.sizeY, ConfigError, "pool_conf.padding ", g.padX,
                   " must be smaller than size_x ", g.sizeX);
    PADDLE_ENFORCE(!c.has("start") || c.getInt("start", 0) == 0, ConfigError, "pool_conf.start is not supported");
    geoms_.push_back(g);
    frameH_ = g.outH;
    frameW_ = g.outW;
    finishInit();
  }
};

class SppLayer : public PoolingLayerBase {
 public:
  using PoolingLayerBase::PoolingLayerBase;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "spp_conf");
    image::ImageShape s = image::readImage(c["image_conf"]);
    PADDLE_ENFORCE(s.channels > 0 && s.width > 0 && s.height > 0, ConfigError,
                   "spp_conf.image_conf needs channels and img_size");
    bool isMax = parsePoolType(c.getString("pool_type", ""));
    int levels = static_cast<int>(c.getInt("pyramid_height", 0));
    PADDLE_ENFORCE(levels > 0, ConfigError, "spp_conf.pyramid_height must be positive");
    for (int l = 0; l < levels; ++l) {
      int bins = 1 << l;
      PoolGeom g;
      g.isMax = isMax;
      g.C = s.channels;
      g.H = s.height;
      g.W = s.width;
      g.sizeY = static_cast<int>(std::ceil(s.height / static_cast<double>(bins)));
      g.sizeX = static_cast<int>(std::ceil(s.width / static_cast<double>(bins)));
      g.strideY = g.sizeY;
      g.strideX = g.sizeX;
      g.padY = (g.sizeY * bins - s.height + 1) / 2;
      g.padX = (g.sizeX * bins - s.width + 1) / 2;
      g.outH = image::outputSize(s.height, g.sizeY, g.padY, g.strideY, true);
      g.outW = image::outputSize(s.width, g.sizeX, g.padX, g.strideX, true);
      PADDLE_ENFORCE(g.outH == bins && g.outW == bins, ConfigError, "spp level ", l, ": a ", s.height, "x",
                     s.width, " image cannot be cut into ", bins, "x", bins, " bins");
      geoms_.push_back(g);
    }
    frameH_ = 1;
    frameW_ = size_ / s.channels;
    finishInit();
  }
};

class MaxOutLayer : public Layer {
 public:
  using Layer::Layer;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "maxout_conf");
    shape_ = image::readImage(c["image_conf"]);
    groups_ = static_cast<int>(c.getInt("groups", 0));
    PADDLE_ENFORCE(groups_ > 0 && shape_.channels > 0 && shape_.channels % groups_ == 0, ConfigError,
                   "maxout_conf.groups ", groups_, " must divide image_conf.channels ", shape_.channels);
    checkInputSize(0, shape_.size());
    PADDLE_ENFORCE(size_ == shape_.size() / groups_, ConfigError, "size ", size_, " should be ",
                   shape_.size() / groups_);
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    resetOutput(rows, size_);
    idx_.resize(rows, size_);
    const int pix = shape_.height * shape_.width, outC = shape_.channels / groups_;
    for (size_t n = 0; n < rows; ++n) {
      const float* x = in.value.row(n);
      float* y = output_.value.row(n);
      int* id = idx_.row(n);
      for (int c = 0; c < outC; ++c) {
        for (int p = 0; p < pix; ++p) {
          int best = (c * groups_) * pix + p;
          for (int k = 1; k < groups_; ++k) {
            int at = (c * groups_ + k) * pix + p;
            if (x[at] > x[best]) best = at;
          }
          y[c * pix + p] = x[best];
          id[c * pix + p] = best;
        }
      }
    }
    output_.frameHeight = shape_.height;
    output_.frameWidth = shape_.width;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    for (size_t n = 0; n < output_.grad.height(); ++n) {
      const float* g = output_.grad.row(n);
      const int* id = idx_.row(n);
      float* gx = in.grad.row(n);
      for (size_t j = 0; j < size_; ++j) gx[id[j]] += g[j];
    }
  }

 private:
  image::ImageShape shape_;
  int groups_ = 1;
  IVector idx_;
};
}  // namespace

REGISTER_LAYER("pool", PoolLayer);
REGISTER_LAYER("spp", SppLayer);
REGISTER_LAYER("maxout", MaxOutLayer);

}  // namespace paddle
