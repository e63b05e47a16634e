// Convolution by im2col + GEMM (BLAS), several samples per GEMM:
//   "exconv" (and "cudnn_conv", which the parser writes when use_gpu=1): y = act(conv(x, W) + b)
//   "exconvt" (and "cudnn_convt"): the transposed convolution.
// Weight layout (v0.10's ExpandConvLayer and cuDNN's): for each group an [M, K] block
// (row-major), M = this group's filters (conv) or input channels (transposed conv), K =
// channels/groups * fh * fw on the image side in im2col row order (channel, filter row,
// filter column); so a conv weight is W[F][C/groups][fh][fw] and a transposed conv's
// W[C][F/groups][fh][fw]. Bias: one per filter when shared_biases, else one per output
// element. Several inputs are summed (v1).
// Batching: a chunk of S samples is unfolded into one col buffer [K*groups, S*P] (P =
// pixels on the small side; sample s owns columns [s*P, (s+1)*P)), so each group needs
// one [M, K] x [K, S*P] GEMM per chunk instead of S small ones. The small-side images are
// gathered into / scattered from a [channels, S*P] buffer (channel-major over the chunk).
// Both buffers keep their capacity, so steady-state batches allocate nothing.
// Devices: GEMMs through math::gemm, everything else in forEach kernels. The CPU unfolds one
// sample at a time with image::im2col/col2im (AVX-512 fast paths for short rows, else the
// loops of image::im2colBatch/col2imBatch), the GPU a whole chunk with im2colBatch/col2imBatch
// (col2im in gather form: one index per image row).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/GemmPacked.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "layers/DirectConv.h"
#include "layers/ImageUtils.h"
#include "layers/InferenceFusion.h"
#include "layers/Layer.h"
#include "layers/NormLayers.h"

namespace paddle {

namespace {
using image::ConvGeom;

// p[0] + ... + p[n-1], in 8 interleaved partial sums (which the CPU vectorises).
PD_HD inline float sumOf(const float* p, size_t n) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int u = 0; u < 8; ++u) part[u] += p[j + u];
  float sum = 0;
  for (int u = 0; u < 8; ++u) sum += part[u];
  for (; j < n; ++j) sum += p[j];
  return sum;
}

// y = act2(r + act((y - m) + add)) in place over n values: the epilogue plus a residual sum's work.
__attribute__((noinline)) void shiftAddInPlace(float* y, const float* r, size_t n, float m, float add, bool relu,
                                               bool sumRelu) {
  for (size_t p = 0; p < n; ++p) {
    const float v = (y[p] - m) + add;
    const float sum = r[p] + (relu ? act::Relu{}.fwd(v) : v);
    y[p] = sumRelu ? act::Relu{}.fwd(sum) : sum;
  }
}

class ConvLayerBase : public Layer, public InputGradientSetter, public TakesChannelEpilogue, public TakesResidual {
 public:
  ConvLayerBase(const Json& c, bool trans) : Layer(c), trans_(trans) {}

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    col_.setDevice(useGpu_);
    tmp_.setDevice(useGpu_);
    PADDLE_ENFORCE(!inputs_.empty(), ConfigError, type_, " layer needs at least one input");
    numFilters_ = static_cast<int>(config_.getInt("num_filters"));
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
      direct_.push_back(!useGpu_ && !trans_ && image::directConvFits(groupPatches(g)));
    }
    const ConvGeom& g0 = geoms_[0];
    outPixels_ = trans_ ? g0.imgH * g0.imgW : g0.outH * g0.outW;
    sharedBias_ = config_.getBool("shared_biases");
    if (bias_) {
      size_t want = sharedBias_ ? static_cast<size_t>(numFilters_) : size_;
      PADDLE_ENFORCE(bias_->size() == want, ConfigError, "bias '", bias_->name(), "' has ", bias_->size(),
                     " values, expected ", want, sharedBias_ ? " (one per filter)" : " (one per output)");
    }
    // relu is applied as the output is stored (direct kernels, or the scatter of the GEMM's
    // output): one pass less over it
    fuseRelu_ = !trans_ && inputs_.size() == 1 && activation_->type() == "relu" && dropRate_ == 0;
  }

  void forward(PassType pass) override {
    pass_ = pass;
    const size_t rows = input(0).batchSize();
    resetOutput(rows, size_);
    bool epilogueDone = false;  // the packed path finishes each sample's channels as it stores them
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Argument& in = input(i);
      PADDLE_ENFORCE(in.value.height() == rows && in.value.width() == inputs_[i]->size(), DataError, "layer '",
                     name_, "': input '", inputs_[i]->name(), "' is ", shapeStr(in.value), ", expected ", rows,
                     "x", inputs_[i]->size());
      if (direct_[i]) {
        forwardDirect(i, rows, i == 0);
        continue;
      }
      if (!trans_ && forwardConvPacked(i, rows, i == 0)) {
        epilogueDone = epilogue_ && pass == PASS_TEST;
        continue;
      }
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
    if (!fuseRelu_) forwardActivation();
    if (epilogue_ && pass == PASS_TEST && !epilogueDone) {
      parallelFor(rows, kParallelGrain / size_ + 1, [&](size_t s0, size_t s1) {
        for (size_t s = s0; s < s1; ++s) finishChannels(s);
      });
    }
  }

  // Only a single-input linear conv without dropout: its output then is what the batch norm reads.
  bool takeChannelEpilogue(Parameter* mean, Parameter* shift, bool relu) override {
    const std::string& act = activation_->type();
    const size_t F = static_cast<size_t>(numFilters_);
    if (trans_ || useGpu_ || inputs_.size() != 1 || dropRate_ != 0 || (act != "linear" && !act.empty()) ||
        !mean || mean->size() != F || (shift && shift->size() != F))
      return false;
    epilogue_ = true;
    epiMean_ = mean;
    epiShift_ = shift;
    epiRelu_ = relu;
    return true;
  }
  // A residual sum after the epilogue: only a layer computed before this one, of this one's size.
  bool takeResidual(Layer* residual, bool relu) override {
    if (!epilogue_ || !residual || residual->size() != size_) return false;
    residual_ = residual;
    sumRelu_ = relu;
    return true;
  }
  // The taken residual sum's other input (checked against this output's shape), or null.
  const Matrix* residualValue() const {
    if (!residual_) return nullptr;
    const Matrix& r = residual_->output().value;
    PADDLE_ENFORCE(r.height() == output_.value.height() && r.width() == size_, DataError, "layer '", name_,
                   "': the residual sum's other input is ", shapeStr(r));
    return &r;
  }
  // finishChannels' work for sample s as the product's store does it (filters: rows of C).
  math::GemmEpilogue channelEpilogue(size_t s) const {
    math::GemmEpilogue e;
    e.rowMean = epiMean_->value().data();
    e.rowShift = epiShift_ ? epiShift_->value().data() : nullptr;
    e.rowRelu = epiRelu_;
    if (const Matrix* r = residualValue()) {
      e.residual = r->row(s);
      e.ldr = static_cast<size_t>(outPixels_);
      e.sumRelu = sumRelu_;
    }
    return e;
  }
  // Sample s's output [filters, pixels]: the taken epilogue (the batch norm's testing formula with
  // scale and 1/std 1) and residual sum, the same bits as those layers give.
  void finishChannels(size_t s) {
    const size_t F = static_cast<size_t>(numFilters_), N = static_cast<size_t>(outPixels_);
    float* y = output_.value.row(s);
    const float* m = epiMean_->value().data();
    const float* b = epiShift_ ? epiShift_->value().data() : nullptr;
    const Matrix* r = residualValue();
    for (size_t f = 0; f < F; ++f) {
      if (r) {
        shiftAddInPlace(y + f * N, r->row(s) + f * N, N, m[f], b ? b[f] : 0.0f, epiRelu_, sumRelu_);
      } else {
        foldedBatchNormRow(y + f * N, y + f * N, N, m[f], b ? b[f] : 0.0f, epiRelu_);
      }
    }
  }

  void backward() override {
    paddedCol_ = nullptr;  // col_ is written below
    backwardActivation();
    const size_t rows = output_.grad.height();
    if (bias_ && !bias_->isStatic() && (trans_ || direct_[0]) && !directBiasGrad()) wholeBiasGrad();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (direct_[i]) backwardDirect(i, rows);
      if (direct_[i] && input(i).grad.empty()) continue;
      const size_t S = chunkSize(geoms_[i], rows);
      for (size_t s0 = 0; s0 < rows; s0 += S) {
        const size_t cs = std::min(S, rows - s0);
        trans_ ? backwardTrans(i, s0, cs) : backwardConv(i, s0, cs);
      }
    }
  }

  // A conv sets its one input's gradient with the col2im of each chunk (in the cache right after
  // the chunk's GEMM) rather than adding it into a cleared one.
  bool canSetInputGradient(bool relu) const override { return !trans_ && !relu && inputs_.size() == 1; }

  // The helpers below are public only because kernels are defined in them (an nvcc rule).

  // Transposed conv: y += b (per filter when shared).
  void addBias() {
    Matrix& y = output_.value;
    if (!sharedBias_) {
      math::addRowVector(y, bias_->value());
      return;
    }
    const float* b = bias_->value().data();
    float* out = y.data();
    const size_t F = numFilters_, P = outPixels_;
    forEach2(useGpu_, y.height() * F, P, [=] PD_HD(size_t r, size_t p) { out[r * P + p] += b[r % F]; });
  }
  // gb += the bias gradient of the batch, from the whole output gradient.
  void wholeBiasGrad() {
    const Matrix& g = output_.grad;
    if (!sharedBias_) {
      math::sumRows(g, bias_->grad(), 1.0f);
      return;
    }
    const float* gy = g.data();
    float* gb = bias_->grad().data();
    const size_t rows = g.height(), F = numFilters_, P = outPixels_;
    forEach(useGpu_, F, [=] PD_HD(size_t f) {
      float sum = 0;
      for (size_t n = 0; n < rows; ++n) sum += sumOf(gy + (n * F + f) * P, P);
      gb[f] += sum;
    });
  }

  // Sizes of the per-group GEMM: K rows of col, M filters/channels, N pixels of the small side.
  void dims(const ConvGeom& g, size_t& K, size_t& M, size_t& N) const {
    K = static_cast<size_t>(g.filterChannels) * g.fh * g.fw;
    M = static_cast<size_t>(trans_ ? g.channels : numFilters_) / g.groups;
    N = static_cast<size_t>(g.outH) * g.outW;
  }
  // Samples per chunk: enough columns for an efficient GEMM while the col buffer stays
  // about cache-sized on the CPU (kColFloats) or bounded on the GPU, at least one sample.
  size_t chunkSize(const ConvGeom& g, size_t rows) const {
    size_t K, M, N;
    dims(g, K, M, N);
    size_t s = (useGpu_ ? kColFloatsGpu : kColFloats) / std::max<size_t>(K * g.groups * N, 1);
    return std::max<size_t>(1, std::min(s, rows));
  }
  Matrix view(const float* p, size_t h, size_t w) const {
    return Matrix::view(const_cast<float*>(p), h, w, useGpu_);
  }

  // col_ [K*groups, cs*N] = im2col of rows [s0, s0+cs) of m (big-side images of C channels).
  void unfold(const ConvGeom& g, int C, const Matrix& m, size_t s0, size_t cs) {
    const size_t N = static_cast<size_t>(g.outH) * g.outW, L = cs * N;
    if (useGpu_) {
      image::im2colBatch(true, m.row(s0), m.width(), cs, patches(g, C), col_.data());
      return;
    }
    // each sample fills its own columns of col_: threads take samples
    float* col = col_.data();
    parallelFor(cs, kParallelGrain / std::max<size_t>(L / cs * g.fh * g.fw * C, 1) + 1, [&](size_t b, size_t e) {
      for (size_t s = b; s < e; ++s)
        image::im2col(m.row(s0 + s), C, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW,
                      col + s * N, L);
    });
  }
  // Rows [s0, s0+cs) of m (+)= col2im of col_.
  void fold(const ConvGeom& g, int C, Matrix& m, size_t s0, size_t cs, bool add) {
    const size_t N = static_cast<size_t>(g.outH) * g.outW, L = cs * N;
    if (useGpu_) {
      image::col2imBatch(true, col_.data(), 0, cs, patches(g, C), m.row(s0), m.width(), add);
      return;
    }
    const float* col = col_.data();
    parallelFor(cs, kParallelGrain / std::max<size_t>(L / cs * g.fh * g.fw * C, 1) + 1, [&](size_t b, size_t e) {
      for (size_t s = b; s < e; ++s)
        image::col2im(col + s * N, C, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW,
                      m.row(s0 + s), L, add);
    });
  }
  static image::Patches patches(const ConvGeom& g, int C) {
    return {C, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW};
  }
  static image::Patches groupPatches(const ConvGeom& g) { return patches(g, g.filterChannels); }

  // The direct kernels (CPU, conv only): every sample, each group at its own channels and filters.
  void forwardDirect(size_t i, size_t rows, bool first) {
    const ConvGeom& g = geoms_[i];
    const image::Patches p = groupPatches(g);
    const size_t M = numFilters_ / g.groups, K = p.rows(), N = p.positions(), groupIn = K / (g.fh * g.fw) * g.imgH * g.imgW;
    const size_t inWidth = input(i).value.width(), outWidth = size_;
    const float* x = input(i).value.data();
    const float* w = weight(i)->value().data();
    const float* b = first && bias_ ? bias_->value().data() : nullptr;
    float* y = output_.value.data();
    const bool perOutput = !sharedBias_, relu = fuseRelu_;
    parallelFor(rows, kParallelGrain / (M * g.groups * N * K) + 1, [&](size_t s0, size_t s1) {
      for (size_t s = s0; s < s1; ++s)
        for (int gr = 0; gr < g.groups; ++gr)
          image::directConvForward(x + s * inWidth + gr * groupIn, p, w + gr * M * K, static_cast<int>(M),
                                   b ? b + gr * M * (perOutput ? N : 1) : nullptr, perOutput, !first, relu,
                                   y + s * outWidth + gr * M * N);
    });
  }
  // The weight gradient of input i (and the shared bias's, when directBiasGrad()).
  void backwardDirect(size_t i, size_t rows) {
    Parameter* wp = weight(i);
    if (wp->isStatic()) return;
    const ConvGeom& g = geoms_[i];
    const image::Patches p = groupPatches(g);
    const size_t M = numFilters_ / g.groups, K = p.rows(), N = p.positions(), groupIn = K / (g.fh * g.fw) * g.imgH * g.imgW;
    const Matrix& x = input(i).value;
    float* gb = i == 0 && directBiasGrad() ? bias_->grad().data() : nullptr;
    for (int gr = 0; gr < g.groups; ++gr)
      image::directConvWeightGrad(x.data() + gr * groupIn, x.width(), output_.grad.data() + gr * M * N, size_, rows, p,
                                  static_cast<int>(M), wp->grad().data() + gr * M * K, gb ? gb + gr * M : nullptr);
  }
  // The direct weight gradient of input 0 sums a shared bias's gradient too.
  bool directBiasGrad() const {
    return direct_[0] && bias_ && !bias_->isStatic() && sharedBias_ && !weights_[0]->isStatic();
  }

  // Small-side images of samples [s0, s0+cs) of `m` ([rows, C*N]) -> buf [C, cs*N].
  void gather(const Matrix& m, size_t s0, size_t cs, size_t C, size_t N, Matrix& buf) {
    buf.resize(C, cs * N);
    const size_t L = cs * N, width = m.width();
    const float* src = m.row(s0);
    float* dst = buf.data();
    forEach2Parallel(useGpu_, C * cs, N, [=] PD_HD(size_t r, size_t p) {
      const size_t c = r / cs, s = r % cs;
      dst[c * L + s * N + p] = src[s * width + c * N + p];
    });
  }
  // The reverse: m rows [s0, s0+cs) (+)= buf [C, cs*N], plus the conv bias b when given, relu'd
  // when asked (not when adding).
  void scatter(const Matrix& buf, size_t s0, size_t cs, size_t C, size_t N, Matrix& m, bool add,
               const float* b = nullptr, bool relu = false) {
    const size_t L = cs * N, width = m.width();
    const float* src = buf.data();
    float* dst = m.row(s0);
    // element (s, c, p): dst[s*width + c*N + p], src[c*L + s*N + p]
    if (add) {
      forEach2Parallel(useGpu_, cs * C, N, [=] PD_HD(size_t r, size_t p) {
        dst[r / C * width + r % C * N + p] += src[r % C * L + r / C * N + p];
      });
    } else if (!b) {
      forEach2Parallel(useGpu_, cs * C, N, [=] PD_HD(size_t r, size_t p) {
        const float v = src[r % C * L + r / C * N + p];
        dst[r / C * width + r % C * N + p] = relu ? act::Relu{}.fwd(v) : v;
      });
    } else if (sharedBias_) {
      forEach2Parallel(useGpu_, cs * C, N, [=] PD_HD(size_t r, size_t p) {
        const float v = src[r % C * L + r / C * N + p] + b[r % C];
        dst[r / C * width + r % C * N + p] = relu ? act::Relu{}.fwd(v) : v;
      });
    } else {
      forEach2Parallel(useGpu_, cs * C, N, [=] PD_HD(size_t r, size_t p) {
        const float v = src[r % C * L + r / C * N + p] + b[r % C * N + p];
        dst[r / C * width + r % C * N + p] = relu ? act::Relu{}.fwd(v) : v;
      });
    }
  }
  // Conv: gb += the bias gradient of a chunk's output gradient gathered in buf [F, cs*N].
  void chunkBiasGrad(const Matrix& buf, size_t cs, size_t N, float* gb) {
    const size_t F = buf.height(), L = cs * N;
    const float* g = buf.data();
    if (sharedBias_) {
      forEachParallel(useGpu_, F, [=] PD_HD(size_t f) { gb[f] += sumOf(g + f * L, L); }, kParallelGrain / L + 1);
    } else {
      forEach2Parallel(useGpu_, F, N, [=] PD_HD(size_t f, size_t p) {
        float sum = 0;
        for (size_t s = 0; s < cs; ++s) sum += g[f * L + s * N + p];
        gb[f * N + p] += sum;
      });
    }
  }

  // out[f, :] (+)= sum_k W_g[f, k] col_g[k, :] per group, for a chunk of samples
  void forwardConv(size_t i, size_t s0, size_t cs, bool first) {
    paddedCol_ = nullptr;  // col_ is written below
    const ConvGeom& g = geoms_[i];
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    col_.resize(K * g.groups, L);
    unfold(g, g.channels, input(i).value, s0, cs);
    tmp_.resize(M * g.groups, L);
    const float* w = weight(i)->value().data();
    for (int gr = 0; gr < g.groups; ++gr) {
      Matrix W = view(w + gr * M * K, M, K), C = view(col_.data() + gr * K * L, K, L);
      Matrix Y = view(tmp_.data() + gr * M * L, M, L);
      math::gemm(W, false, C, false, Y, 1.0f, 0.0f);
    }
    scatter(tmp_, s0, cs, M * g.groups, N, output_.value, !first, first && bias_ ? bias_->value().data() : nullptr,
            fuseRelu_);
  }

  // Inference with packed filters (a Predictor's forward): one sample at a time, unfolded into a
  // cache-sized col of its thread's and multiplied straight into its output rows (bias and relu
  // added there), so no scatter. Threads take samples (one sample: the product's columns). The
  // packed kernels sum each element in one order whatever columns a call holds: the same
  // products as a chunk's. False (nothing done) where the filters are not packed here.
  bool forwardConvPacked(size_t i, size_t rows, bool first) {
    const ConvGeom& g = geoms_[i];
    size_t K, M, N;
    dims(g, K, M, N);
    const float* w = weight(i)->value().data();
    if (useGpu_ || pass_ != PASS_TEST || !math::packedWeightOnLeft(w, M * g.groups, K)) return false;
    // Wide stride-1 convs (kShiftedMinWidth outputs a row and more) read a zero-padded copy of each
    // image where it lies instead of unfolding it (gemmRowOffsets), over Wp-wide output rows of which
    // the first ow are kept: the same products, in the same order, as from the unfolded image.
    const size_t Wp = static_cast<size_t>(g.imgW) + 2 * g.px, Hp = static_cast<size_t>(g.imgH) + 2 * g.py;
    // Output rows of 8 (an even number of them) or a multiple of 16 read it with no extra columns, the
    // product stored in the output's own layout (gemmImageRows); rows of a multiple of 16 read the
    // image itself, unpadded, under masks.
    const bool padGeometry = first && g.groups == 1 && g.sx == 1 && g.sy == 1 &&
                             static_cast<size_t>(g.outW) + g.fw - 1 == Wp && static_cast<size_t>(g.outH) + g.fh - 1 == Hp;
    const bool imageRows = padGeometry && (g.outW % 16 == 0 || (g.outW == 8 && g.outH % 2 == 0));
    const bool shifted = padGeometry && (imageRows || g.outW >= kShiftedMinWidth);
    const size_t plane = Hp * Wp, Np = imageRows ? 0 : (g.outH - 1) * Wp + g.outW;
    // Rows of a multiple of 16 read the image as it lies, unpadded, under masks (no copy at all).
    const bool asItLies = imageRows && g.outW % 16 == 0;
    rowOff_.clear();  // (a member: its capacity stays between batches)
    if (asItLies) {
      for (int c = 0; c < g.channels; ++c)
        for (int ky = 0; ky < g.fh; ++ky)
          for (int kx = 0; kx < g.fw; ++kx)
            rowOff_.push_back(static_cast<ptrdiff_t>((c * g.imgH + ky - g.py) * g.imgW + kx - g.px));
      if (tapMasks_.empty()) tapMasks(g, N);
    } else if (shifted) {
      for (int c = 0; c < g.channels; ++c)
        for (int ky = 0; ky < g.fh; ++ky)
          for (int kx = 0; kx < g.fw; ++kx) rowOff_.push_back(static_cast<ptrdiff_t>((c * Hp + ky) * Wp + kx));
    }
    // the filters' 8-row tiles laid out k-major, looked up here: pool threads have no packed-weights scope
    const float* aTiles = g.groups == 1 ? math::packedWeightRowTiles(w, M, K) : nullptr;
    const size_t chunks = parallelChunks(rows, 1);
    col_.resize(std::max<size_t>(chunks, 1), asItLies ? 1 : shifted ? g.channels * plane + M * Np : K * g.groups * N);
    // the padding stays zero from one forward to the next while col_ keeps its place and shape and
    // nothing else writes it (a one-sample forward: most of the cost of its copying)
    const bool zeroed = shifted && paddedCol_ == col_.data() && paddedShape_ == col_.size();
    paddedCol_ = shifted ? col_.data() : nullptr;
    paddedShape_ = col_.size();
    const float* b = first && bias_ ? bias_->value().data() : nullptr;
    const bool perOutput = !sharedBias_, relu = fuseRelu_;
    const Matrix& x = input(i).value;
    parallelChunks(rows, 1, [&](size_t chunk, size_t s0, size_t s1) {
      float* col = col_.row(chunk);
      if (shifted && !asItLies && !zeroed) std::fill(col, col + g.channels * plane, 0.0f);
      for (size_t s = s0; s < s1; ++s) {
        float* y = output_.value.row(s);
        if (shifted) {
          const bool finished = forwardShifted(g, s, x.row(s), w, aTiles, M, K, rowOff_.data(), col, y, b, perOutput,
                                               relu, imageRows);
          if (epilogue_ && pass_ == PASS_TEST && !finished) finishChannels(s);
          continue;
        }
        image::im2col(x.row(s), g.channels, g.imgH, g.imgW, g.fh, g.fw, g.sy, g.sx, g.py, g.px, g.outH, g.outW, col,
                      N);
        // the kernels called here, not through math::gemm: a pool thread running this sample has no
        // packed-weights scope of its own, and would take OpenBLAS (other bits) instead. One sample
        // alone: threads take the product's columns (in a chunk of several, the loop runs serially).
        const size_t panels = (N + 31) / 32;
        for (int gr = 0; gr < g.groups; ++gr) {
          parallelFor(panels, (size_t(1) << 18) / (M * K * 32) + 1, [&](size_t q0, size_t q1) {
            math::gemmRowMajor(M, K, q0 * 32, std::min(N, q1 * 32), 1.0f, w + gr * M * K, K, col + gr * K * N, N,
                               first ? 0.0f : 1.0f, y + gr * M * N, N, aTiles);
          });
        }
        if (b || relu) addBiasRelu(y, N, b, perOutput, relu);
        if (epilogue_ && pass_ == PASS_TEST) finishChannels(s);
      }
    });
    return true;
  }
  // For the unpadded image path of input 0 (once: its geometry stays): per filter tap (ky, kx) and
  // vector of 16 outputs, the lanes whose pixel lies inside the image; per row k of the unfolded
  // image, where its tap's masks start.
  void tapMasks(const ConvGeom& g, size_t N) {
    const size_t taps = static_cast<size_t>(g.fh) * g.fw, vectors = N / 16;
    tapMasks_.assign(taps * vectors, 0);
    for (int ky = 0; ky < g.fh; ++ky)
      for (int kx = 0; kx < g.fw; ++kx)
        for (size_t u = 0; u < vectors; ++u)
          for (unsigned l = 0; l < 16; ++l) {
            const int col = static_cast<int>(16 * u + l), y = col / g.outW + ky - g.py, x = col % g.outW + kx - g.px;
            if (y >= 0 && y < g.imgH && x >= 0 && x < g.imgW)
              tapMasks_[(ky * g.fw + kx) * vectors + u] |= static_cast<uint16_t>(1u << l);
          }
    maskRow_.resize(static_cast<size_t>(g.channels) * taps);
    for (size_t k = 0; k < maskRow_.size(); ++k) maskRow_[k] = static_cast<int>(k % taps * vectors);
  }
  // One sample's output [filters, N] += its bias (per filter, or per output), then relu'd when asked:
  // one loop per case, so that each vectorises.
  void addBiasRelu(float* y, size_t N, const float* b, bool perOutput, bool relu) const {
    const size_t F = static_cast<size_t>(numFilters_);
    if (b && perOutput) {
      for (size_t j = 0; j < F * N; ++j) y[j] = relu ? act::Relu{}.fwd(y[j] + b[j]) : y[j] + b[j];
    } else if (b) {
      for (size_t f = 0; f < F; ++f) {
        const float bf = b[f];
        float* yf = y + f * N;
        if (relu) {
          for (size_t p = 0; p < N; ++p) yf[p] = act::Relu{}.fwd(yf[p] + bf);
        } else {
          for (size_t p = 0; p < N; ++p) yf[p] += bf;
        }
      }
    } else {
      for (size_t j = 0; j < F * N; ++j) y[j] = act::Relu{}.fwd(y[j]);
    }
  }
  // One sample (s) of forwardConvPacked's shifted path: buf holds the padded image [C, Hp, Wp]; with
  // imageRows the product goes straight to y, else to [M, Np] over Wp-wide rows after it, whose first
  // ow columns a row are y's. Then bias and relu. True when the taken epilogue (finishChannels'
  // work) ran in the product's store too: imageRows, no bias or relu of the conv's own.
  bool forwardShifted(const ConvGeom& g, size_t s, const float* x, const float* w, const float* aTiles, size_t M, size_t K,
                      const ptrdiff_t* rowOff, float* buf, float* y, const float* b, bool perOutput, bool relu,
                      bool imageRows) {
    const size_t W = g.imgW, H = g.imgH, Wp = W + 2 * g.px, plane = (H + 2 * g.py) * Wp;
    const size_t ow = g.outW, oh = g.outH, Np = (oh - 1) * Wp + ow, N = oh * ow;
    const bool asItLies = imageRows && ow % 16 == 0;
    for (int c = 0; !asItLies && c < g.channels; ++c)
      for (size_t r = 0; r < H; ++r)
        image::copyRow(buf + c * plane + (r + g.py) * Wp + g.px, x + (c * H + r) * W, static_cast<int>(W));
    if (imageRows) {
      const bool fused = epilogue_ && pass_ == PASS_TEST && !b && !relu;
      const math::GemmEpilogue e = fused ? channelEpilogue(s) : math::GemmEpilogue{};
      const math::ImageTaps taps{tapMasks_.data(), maskRow_.data()};
      parallelFor((N + 31) / 32, (size_t(1) << 18) / (M * K * 32) + 1, [&](size_t q0, size_t q1) {
        math::gemmImageRows(M, K, q0 * 32, std::min(N, q1 * 32), 1.0f, w, K, asItLies ? x : buf, rowOff, ow,
                            asItLies ? W : Wp, 0.0f, y, N, fused ? &e : nullptr, aTiles, asItLies ? &taps : nullptr);
      });
      if (b || relu) addBiasRelu(y, N, b, perOutput, relu);
      return fused;
    }
    float* out = buf + g.channels * plane;
    const size_t panels = (Np + 31) / 32;
    parallelFor(panels, (size_t(1) << 18) / (M * K * 32) + 1, [&](size_t q0, size_t q1) {
      math::gemmRowOffsets(M, K, q0 * 32, std::min(Np, q1 * 32), 1.0f, w, K, buf, rowOff, 0.0f, out, Np);
    });
    for (size_t f = 0; f < M; ++f)
      for (size_t oy = 0; oy < oh; ++oy)
        image::copyRow(y + f * N + oy * ow, out + f * Np + oy * Wp, static_cast<int>(ow));
    if (b || relu) addBiasRelu(y, N, b, perOutput, relu);
    return false;
  }

  void backwardConv(size_t i, size_t s0, size_t cs) {
    const ConvGeom& g = geoms_[i];
    Argument& in = input(i);
    Parameter* wp = weight(i);
    // the direct path has done the weight and bias gradients: only the input's is left
    const bool needW = !wp->isStatic() && !direct_[i], needX = !in.grad.empty();
    float* gb = i == 0 && bias_ && !bias_->isStatic() && !direct_[i] ? bias_->grad().data() : nullptr;
    if (!needW && !needX && !gb) return;
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    gather(output_.grad, s0, cs, M * g.groups, N, tmp_);
    if (gb) chunkBiasGrad(tmp_, cs, N, gb);
    col_.resize(K * g.groups, L);
    if (needW) {
      unfold(g, g.channels, in.value, s0, cs);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix C = view(col_.data() + gr * K * L, K, L), G = view(tmp_.data() + gr * M * L, M, L);
        Matrix GW = view(wp->grad().data() + gr * M * K, M, K);
        math::gemm(G, false, C, true, GW, 1.0f, 1.0f);
      }
    }
    if (needX) {
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(wp->value().data() + gr * M * K, M, K), G = view(tmp_.data() + gr * M * L, M, L);
        Matrix C = view(col_.data() + gr * K * L, K, L);
        math::gemm(W, true, G, false, C, 1.0f, 0.0f);
      }
      fold(g, g.channels, in.grad, s0, cs, !setsInputGrad(i));
    }
  }

  // Transposed: col_g = W_g^T x_g, then scatter col into the (big) output image.
  void forwardTrans(size_t i, size_t s0, size_t cs, bool first) {
    paddedCol_ = nullptr;  // col_ is written below
    const ConvGeom& g = geoms_[i];
    size_t K, M, N;
    dims(g, K, M, N);
    const size_t L = cs * N;
    gather(input(i).value, s0, cs, M * g.groups, N, tmp_);
    col_.resize(K * g.groups, L);
    const float* w = weight(i)->value().data();
    for (int gr = 0; gr < g.groups; ++gr) {
      Matrix W = view(w + gr * M * K, M, K), X = view(tmp_.data() + gr * M * L, M, L);
      Matrix C = view(col_.data() + gr * K * L, K, L);
      math::gemm(W, true, X, false, C, 1.0f, 0.0f);
    }
    fold(g, numFilters_, output_.value, s0, cs, !first);
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
    unfold(g, numFilters_, output_.grad, s0, cs);
    if (needW) {
      gather(in.value, s0, cs, M * g.groups, N, tmp_);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix C = view(col_.data() + gr * K * L, K, L), X = view(tmp_.data() + gr * M * L, M, L);
        Matrix GW = view(wp->grad().data() + gr * M * K, M, K);
        math::gemm(X, false, C, true, GW, 1.0f, 1.0f);
      }
    }
    if (needX) {
      tmp_.resize(M * g.groups, L);
      for (int gr = 0; gr < g.groups; ++gr) {
        Matrix W = view(wp->value().data() + gr * M * K, M, K), C = view(col_.data() + gr * K * L, K, L);
        Matrix GX = view(tmp_.data() + gr * M * L, M, L);
        math::gemm(W, false, C, false, GX, 1.0f, 0.0f);
      }
      scatter(tmp_, s0, cs, M * g.groups, N, in.grad, true);
    }
  }

 private:
  // 512 KB of col per chunk: it stays in L2 between im2col and the GEMM that reads it
  // (LeNet's 20->50 5x5 conv on 12x12: 4 samples, GEMM N = 256).
  static constexpr size_t kColFloats = size_t(1) << 17;
  // The padded image's extra columns cost products (16 wide, 3x3: 286 columns for 256 outputs,
  // 9 panels for 8) but save the unfolding, a net gain from 16 outputs a row (ResNet-20's middle
  // stage: about 4% of its batch-64 CPU time); at 8 the extra products cost more than that saves.
  static constexpr int kShiftedMinWidth = 16;
  // On the GPU, 128 MB: whole batches of small images per GEMM.
  static constexpr size_t kColFloatsGpu = size_t(1) << 25;
  bool trans_;
  int numFilters_ = 0, outPixels_ = 0;
  bool sharedBias_ = false;
  std::vector<ConvGeom> geoms_;
  std::vector<bool> direct_;  // per input: the direct kernels instead of im2col + GEMM
  bool fuseRelu_ = false;
  // takeChannelEpilogue: a folded batch norm's testing work, done here
  bool epilogue_ = false, epiRelu_ = false;
  Parameter* epiMean_ = nullptr;
  Parameter* epiShift_ = nullptr;
  Layer* residual_ = nullptr;  // takeResidual: its output is added after the epilogue (then relu'd when sumRelu_)
  bool sumRelu_ = false;
  Matrix col_, tmp_;  // [K*groups, S*P] unfolded images; [channels, S*P] small-side images
  // forwardConvPacked's shifted path: where (and how large) col_ was when its padding was last zeroed
  const float* paddedCol_ = nullptr;
  size_t paddedShape_ = 0;
  std::vector<ptrdiff_t> rowOff_;  // forwardConvPacked's shifted path: where each (c, ky, kx) row of B starts
  std::vector<uint16_t> tapMasks_;  // tapMasks(): [tap][vector of 16 outputs] lanes inside the image
  std::vector<int> maskRow_;         // and per (c, ky, kx) row, where its tap's masks start
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
