// Convolution by im2col + GEMM (BLAS), several samples per GEMM:
//   "exconv" (and "cudnn_conv", which the parser writes when use_gpu=1): y = act(conv(x, W) + b)
//   "exconvt" (and "cudnn_convt"): the transposed convolution.
// Weight layout (v1 ConvBaseLayer): for each group a [K, M] block, K = filter channels
// * fh * fw in im2col row order (channel, filter row, filter column), M = this group's
// filters (conv) or input channels (transposed conv). Bias: one per filter when
// shared_biases, else one per output element. Several inputs are summed (v1).
// Batching: a chunk of S samples is unfolded into one col buffer [K*groups, S*P] (P =
// pixels on the small side; sample s owns columns [s*P, (s+1)*P)), so each group needs
// one [M, K] x [K, S*P] GEMM per chunk instead of S small ones. The small-side images are
// gathered into / scattered from a [channels, S*P] buffer (channel-major over the chunk).
// Both buffers keep their capacity, so steady-state batches allocate nothing.
#include <algorithm>
#include <memory>

#include "Errors.h"
#include "ImageUtils.h"
#include "Layer.h"
#include "math/MathOps.h"

namespace paddle {

namespace {
using image::ConvGeom;

class ConvLayerBase : public Layer {
 public:
  ConvLayerBase(const Json& c, bool trans) : Layer(c), trans_(trans) {}

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    requireCpu();
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, type_, " layer needs at least one input");
    numFilters_ = static_cast<int>(config_.getInt("num_filters", 0));
    PADDLE_ENFORCE(numFilters_ > 0, ConfigError, type_, " layer needs a positive num_filters");
    const auto& ins = config_["inputs"].items();
    for (size_t i = 0; i < ins.size(); ++i) {
      PADDLE_ENFORCE(ins[i].has("conv_conf"), ConfigError, "inputs[", i, "] has no conv_conf");
      ConvGeom g(ins[i]["conv_conf"]);
      // conv: channels in, numFilters out; convt: the reverse
      int smallC = trans_ ? g.channels : numFilters_;  // channels on the output_x side
      int bigC = trans_ ? numFilters_ : g.channels;    // channels on the img_size side
      PADDLE_ENFORCE(bigC % g.groups == 0 && smallC % g.groups == 0, ConfigError, "conv_conf.groups ",
                     g.groups, " must divide channels ", g.channels, " and num_filters ", numFilters_);
      PADDLE_ENFORCE(g.filterChannels == 0 || g.filterChannels == bigC / g.groups, ConfigError,
                     "conv_conf.filter_channels ", g.filterChannels, " should be ", bigC / g.groups);
      g.filterChannels = bigC / g.groups;
      size_t inSize = trans_ ? static_cast<size_t>(smallC) * g.outH * g.outW
                             : static_cast<size_t>(bigC) * g.imgH * g.imgW;
      size_t outSize = trans_ ? static_cast<size_t>(bigC) * g.imgH * g.imgW
                              : static_cast<size_t>(smallC) * g.outH * g.outW;
      checkInputSize(i, inSize);
      PADDLE_ENFORCE(outSize == size_, ConfigError, "inputs[", i, "]: conv output ", outSize,
                     " differs from the layer size ", size_);
      Parameter* w = weight(i);
      size_t K = static_cast<size_t>(g.filterChannels) * g.fh * g.fw;
      size_t M = static_cast<size_t>(smallC) / g.groups;
      PADDLE_ENFORCE(w && w->size() == K * M * g.groups, ConfigError, "inputs[", i, "]: weight ",
                     (w ? "'" + w->name() + "' has " + std::to_string(w->size()) + " values" : "missing"),
                     ", expected ", K * M * g.groups);
      geoms_.push_back(g);
    }
    const ConvGeom& g0 = geoms_[0];
    outPixels_ = trans_ ? g0.imgH * g0.imgW : g0.outH * g0.outW;
    sharedBias_ = config_.getBool("shared_biases", false);
    if (bias_) {
      size_t want = sharedBias_ ? static_cast<size_t>(numFilters_) : size_;
      PADDLE_ENFORCE(bias_->size() == want, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", want, sharedBias_ ? " (one per filter)" : " (one per output)");
    }
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    resetOutput(rows, size_);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Argument& in = input(i);
      PADDLE_ENFORCE(in.value.height() == rows && in.value.width() == inputs_[i]->size(), DataError, "layer '",
                     name_, "': input '", inputs_[i]->name(), "' is ", shapeStr(in.value), ", expected ", rows,
                     "x", inputs_[i]->size());
      const size_t S = chunkSize(geoms_[i], rows);
      for (size_t s0 = 0; s0 < rows; s0 += S) {
        const size_t cs = std::min(S, rows - s0);
        trans_ ? forwardTrans(i, s0, cs, i == 0) : forwardConv(i, s0, cs, i == 0);
      }
    }
    if (bias_ && trans_) addBias();  // conv adds it while scattering the GEMM output
    const ConvGeom& g = geoms_[0];
    output_.frameHeight = trans_ ? g.imgH : g.outH;
    output_.frameWidth = trans_ ? g.imgW : g.outW;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    const Matrix& g = output_.grad;
    const size_t rows = g.height();
    if (bias_ && !bias_->isStatic() && trans_) {  // conv sums it while gathering the output grad
      float* __restrict gb = bias_->grad().data();
      for (size_t n = 0; n < rows; ++n) {
        const float* __restrict gr = g.row(n);
        if (sharedBias_) {
          for (int f = 0; f < numFilters_; ++f) {
            float s = 0;
            for (int p = 0; p < outPixels_; ++p) s += gr[f * outPixels_ + p];
            gb[f] += s;
          }
        } else {
          for (size_t j = 0; j < size_; ++j) gb[j] += gr[j];
        }
      }
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const size_t S = chunkSize(geoms_[i], rows);
      for (size_t s0 = 0; s0 < rows; s0 += S) {
        const size_t cs = std::min(S, rows - s0);
        trans_ ? backwardTrans(i, s0, cs) : backwardConv(i, s0, cs);
      }
    }
  }

 private:
  void addBias() {
    const float* __restrict b = bias_->value().data();
    for (size_t n = 0; n < output_.value.height(); ++n) {
      float* __restrict y = output_.value.row(n);
      if (sharedBias_) {
        for (int f = 0; f < numFilters_; ++f) {
          const float bf = b[f];
          for (int p = 0; p < outPixels_; ++p) y[f * outPixels_ + p] += bf;
        }
      } else {
        for (size_t j = 0; j < size_; ++j) y[j] += b[j];
      }
    }
  }

  // Sizes of the per-group GEMM: K rows of col, M filters/channels, N pixels of the small side.
  void dims(const ConvGeom& g, size_t& K, size_t& M, size_t& N) const {
    K = static_cast<size_t>(g.filterChannels) * g.fh * g.fw;
    M = static_cast<size_t>(trans_ ? g.channels : numFilters_) / g.groups;
    N = static_cast<size_t>(g.outH) * g.outW;
  }
  // Samples per chunk: enough columns for an efficient GEMM while the col buffer stays
  // about cache-sized (kColFloats), at least one sample.
  size_t chunkSize(const ConvGeom& g, size_t rows) const {
    size_t K, M, N;
    dims(g, K, M, N);
    size_t s = kColFloats / std::max<size_t>(K * g.groups * N, 1);
    return std::max<size_t>(1, std::min(s, rows));
  }
  static Matrix view(const float* p, size_t h, size_t w) { return Matrix::view(const_cast<float*>(p), h, w, false); }

  // Small-side images of samples [s0, s0+cs) of `m` ([rows, C*N]) -> buf [C, cs*N].
  // With gb (the conv bias grad), also adds the rows to it (per channel when shared).
  void gather(const Matrix& m, size_t s0, size_t cs, size_t C, size_t N, Matrix& buf, float* gb = nullptr) {
    buf.resize(C, cs * N);
    const size_t L = cs * N;
    for (size_t s = 0; s < cs; ++s) {
      const float* __restrict src = m.row(s0 + s);
      float* __restrict dst = buf.data() + s * N;
      for (size_t c = 0; c < C; ++c) {
        const float* __restrict a = src + c * N;
        float* __restrict d = dst + c * L;
        if (!gb) {
          for (size_t p = 0; p < N; ++p) d[p] = a[p];
        } else if (sharedBias_) {
          float sum = 0;
          for (size_t p = 0; p < N; ++p) d[p] = a[p], sum += a[p];
          gb[c] += sum;
        } else {
          float* __restrict g = gb + c * N;
          for (size_t p = 0; p < N; ++p) d[p] = a[p], g[p] += a[p];
        }
      }
    }
  }
  // The reverse: m rows [s0, s0+cs) (+)= buf [C, cs*N], plus the conv bias b when given.
  void scatter(const Matrix& buf, size_t s0, size_t cs, size_t C, size_t N, Matrix& m, bool add,
               const float* b = nullptr) {
    const size_t L = cs * N;
    for (size_t s = 0; s < cs; ++s) {
      float* __restrict dst = m.row(s0 + s);
      const float* __restrict src = buf.data() + s * N;
      for (size_t c = 0; c < C; ++c) {
        float* __restrict d = dst + c * N;
        const float* __restrict a = src + c * L;
        if (add) {
          for (size_t p = 0; p < N; ++p) d[p] += a[p];
        } else if (!b) {
          for (size_t p = 0; p < N; ++p) d[p] = a[p];
        } else if (sharedBias_) {
          const float bc = b[c];
          for (size_t p = 0; p < N; ++p) d[p] = a[p] + bc;
        } else {
          const float* __restrict bb = b + c * N;
          for (size_t p = 0; p < N; ++p) d[p] = a[p] + bb[p];
        }
      }
    }
  }

  // out[f, :] (+)= sum_k W_g[k, f] col_g[k, :] per group, for a chunk of samples
  void forwardConv(size_t i, size_t s0, size_t cs, bool first) {
    const ConvGeom& g = geoms_[i];
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    const Matrix& x = input(i).value;
    col_.resize(K * g.groups, L);
    for (size_t s = 0; s < cs; ++s)
      image::im2col(x.row(s0 + s), g.channels, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH,
                    g.outW, col_.data() + s * N, L);
    tmp_.resize(M * g.groups, L);
    const float* w = weight(i)->value().data();
    for (int gr = 0; gr < g.groups; ++gr) {
      Matrix W = view(w + gr * K * M, K, M), C = view(col_.data() + gr * K * L, K, L);
      Matrix Y = view(tmp_.data() + gr * M * L, M, L);
      math::gemm(W, true, C, false, Y, 1.0f, 0.0f);
    }
    scatter(tmp_, s0, cs, M * g.groups, N, output_.value, !first, first && bias_ ? bias_->value().data() : nullptr);
  }

  void backwardConv(size_t i, size_t s0, size_t cs) {
    const ConvGeom& g = geoms_[i];
    Argument& in = input(i);
    Parameter* wp = weight(i);
    const bool needW = !wp->isStatic(), needX = !in.grad.empty();
    float* gb = i == 0 && bias_ && !bias_->isStatic() ? bias_->grad().data() : nullptr;
    if (!needW && !needX && !gb) return;
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    gather(output_.grad, s0, cs, M * g.groups, N, tmp_, gb);
    col_.resize(K * g.groups, L);
    if (needW) {
      for (size_t s = 0; s < cs; ++s)
        image::im2col(in.value.row(s0 + s), g.channels, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px,
                      g.outH, g.outW, col_.data() + s * N, L);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix C = view(col_.data() + gr * K * L, K, L), G = view(tmp_.data() + gr * M * L, M, L);
        Matrix GW = view(wp->grad().data() + gr * K * M, K, M);
        math::gemm(C, false, G, true, GW, 1.0f, 1.0f);
      }
    }
    if (needX) {
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(wp->value().data() + gr * K * M, K, M), G = view(tmp_.data() + gr * M * L, M, L);
        Matrix C = view(col_.data() + gr * K * L, K, L);
        math::gemm(W, false, G, false, C, 1.0f, 0.0f);
      }
      for (size_t s = 0; s < cs; ++s)
        image::col2im(col_.data() + s * N, g.channels, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH,
                      g.outW, in.grad.row(s0 + s), L);
    }
  }

  // Transposed: col_g = W_g x_g, then scatter col into the (big) output image.
  void forwardTrans(size_t i, size_t s0, size_t cs, bool first) {
    const ConvGeom& g = geoms_[i];
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    gather(input(i).value, s0, cs, M * g.groups, N, tmp_);
    col_.resize(K * g.groups, L);
    const float* w = weight(i)->value().data();
    for (int gr = 0; gr < g.groups; ++gr) {
      Matrix W = view(w + gr * K * M, K, M), X = view(tmp_.data() + gr * M * L, M, L);
      Matrix C = view(col_.data() + gr * K * L, K, L);
      math::gemm(W, false, X, false, C, 1.0f, 0.0f);
    }
    for (size_t s = 0; s < cs; ++s) {
      float* y = output_.value.row(s0 + s);
      if (first) std::fill(y, y + size_, 0.0f);
      image::col2im(col_.data() + s * N, numFilters_, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH,
                    g.outW, y, L);
    }
  }

  void backwardTrans(size_t i, size_t s0, size_t cs) {
    const ConvGeom& g = geoms_[i];
    Argument& in = input(i);
    Parameter* wp = weight(i);
    const bool needW = !wp->isStatic(), needX = !in.grad.empty();
    if (!needW && !needX) return;
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    col_.resize(K * g.groups, L);
    for (size_t s = 0; s < cs; ++s)
      image::im2col(output_.grad.row(s0 + s), numFilters_, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px,
                    g.outH, g.outW, col_.data() + s * N, L);
    if (needW) {
      gather(in.value, s0, cs, M * g.groups, N, tmp_);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix C = view(col_.data() + gr * K * L, K, L), X = view(tmp_.data() + gr * M * L, M, L);
        Matrix GW = view(wp->grad().data() + gr * K * M, K, M);
        math::gemm(C, false, X, true, GW, 1.0f, 1.0f);
      }
    }
    if (needX) {
      tmp_.resize(M * g.groups, L);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(wp->value().data() + gr * K * M, K, M), C = view(col_.data() + gr * K * L, K, L);
        Matrix GX = view(tmp_.data() + gr * M * L, M, L);
        math::gemm(W, true, C, false, GX, 1.0f, 0.0f);
      }
      scatter(tmp_, s0, cs, M * g.groups, N, in.grad, true);
    }
  }

  // 512 KB of col per chunk: it stays in L2 between im2col and the GEMM that reads it
  // (LeNet's 20->50 5x5 conv on 12x12: 4 samples, GEMM N = 256).
  static constexpr size_t kColFloats = size_t(1) << 17;
  bool trans_;
  int numFilters_ = 0, outPixels_ = 0;
  bool sharedBias_ = false;
  std::vector<ConvGeom> geoms_;
  Matrix col_, tmp_;  // [K*groups, S*P] unfolded images; [channels, S*P] small-side images
};

class ExpandConvLayer : public ConvLayerBase {
 public:
  explicit ExpandConvLayer(const Json& c) : ConvLayerBase(c, false) {}
};
class ExpandConvTransLayer : public ConvLayerBase {
 public:
  explicit ExpandConvTransLayer(const Json& c) : ConvLayerBase(c, true) {}
};
}  // namespace

REGISTER_LAYER("exconv", ExpandConvLayer);
REGISTER_LAYER("cudnn_conv", ExpandConvLayer);
REGISTER_LAYER("exconvt", ExpandConvTransLayer);
REGISTER_LAYER("cudnn_convt", ExpandConvTransLayer);

}  // namespace paddle
