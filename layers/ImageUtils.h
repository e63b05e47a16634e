// Helpers for image layers. An image row is channel-major: [C, H, W].
// im2colBatch / col2imBatch are device-generic (forEach: CPU loops or GPU grids) over
// several samples; im2col / col2im, for one sample on the CPU, add AVX-512 fast paths for
// short rows and otherwise run the same loops.
#pragma once
#include <cstddef>
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#endif

#include "engine/Errors.h"
#include "engine/Json.h"
#include "engine/math/Kernel.h"

namespace paddle {
namespace image {

// The output columns [lo, hi) whose input column ox*sx - px + kx lies inside [0, W).
PD_HD inline void validRange(int ow, int sx, int px, int kx, int W, int& lo, int& hi) {
  // x = ox*sx + (kx - px) >= 0  <=>  ox >= ceil((px - kx) / sx)
  const int off = kx - px;
  lo = off >= 0 ? 0 : (-off + sx - 1) / sx;
  // x < W  <=>  ox <= floor((W - 1 - off) / sx)
  hi = W - 1 - off < 0 ? 0 : (W - 1 - off) / sx + 1;
  if (hi > ow) hi = ow;
  if (lo > hi) lo = hi;
}

#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
// Fast paths for stride-1 columns and image rows of at most 16 floats (one AVX-512
// register): one masked load + one masked store per (channel, ky, kx, output row) in
// im2col; col2im sums every shifted column row of an image row in a register. Masked-out lanes are never touched (no faults), so the shifted
// addresses may lie outside the row.
constexpr int kNarrowMaxFilter = 64;
inline __mmask16 laneMask(int lo, int hi) {  // lanes [lo, hi), clipped to [0, 16)
  lo = std::max(lo, 0);
  hi = std::min(hi, 16);
  if (hi <= lo) return 0;
  return static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
}
// 8 floats from lo in lanes 0-7 and 8 from hi in lanes 8-15: two plain 256-bit loads, where
// masked 512-bit loads cost about twice as much (AMD Zen 4).
inline __m512 loadHalves(const float* lo, const float* hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(lo)), _mm256_loadu_ps(hi), 1);
}
inline void im2colNarrow(const float* img, int C, int H, int W, int fh, int fw, int sy, int py, int px, int oh, int ow,
                         float* col, size_t ld) {
  const __mmask16 outMask = laneMask(0, ow);
  __mmask16 masks[kNarrowMaxFilter];  // per kx: the output lanes whose input column is inside the row
  for (int kx = 0; kx < fw; ++kx) masks[kx] = laneMask(std::max(0, px - kx), std::min(ow, W - kx + px));
  // Rows of at most 8 outputs go two at a time: lanes [0, ow) from output row oy, [ow, 2*ow)
  // from oy + 1 (a merge-masked load of its shifted row), one store for both.
  const int pairs = ow <= 8 ? oh / 2 : 0;
  const __mmask16 pairMask = laneMask(0, 2 * ow);
  bool full8 = true;  // every kx reads 8 whole floats of a row (no padding or edge in the way)
  for (int kx = 0; kx < fw; ++kx) full8 = full8 && masks[kx] == 0xff;
  for (int c = 0; c < C; ++c) {
    for (int ky = 0; ky < fh; ++ky) {
      float* rowBase = col + static_cast<size_t>((c * fh + ky) * fw) * ld;
      for (int pr = 0; pr < pairs; ++pr) {
        const int oy = 2 * pr, y0 = oy * sy - py + ky, y1 = y0 + sy;
        const bool in0 = y0 >= 0 && y0 < H, in1 = y1 >= 0 && y1 < H;
        const float* src0 = img + (static_cast<size_t>(c) * H + (in0 ? y0 : 0)) * W;
        const float* src1 = img + (static_cast<size_t>(c) * H + (in1 ? y1 : 0)) * W;
        float* d = rowBase + oy * ow;
        if (ow == 8 && in0 && in1 && full8) {  // (masked loads cost more than the two halves)
          for (int kx = 0; kx < fw; ++kx) _mm512_storeu_ps(d + kx * ld, loadHalves(src0 + kx - px, src1 + kx - px));
          continue;
        }
        for (int kx = 0; kx < fw; ++kx) {
          const long off = kx - px;
          const __m512 lo = _mm512_maskz_loadu_ps(in0 ? masks[kx] : 0, reinterpret_cast<const float*>(
                                                      reinterpret_cast<uintptr_t>(src0) + off * 4L));
          const __m512 v = _mm512_mask_loadu_ps(lo, in1 ? static_cast<__mmask16>(masks[kx] << ow) : 0,
                                                reinterpret_cast<const float*>(
                                                    reinterpret_cast<uintptr_t>(src1) + (off - ow) * 4L));
          _mm512_mask_storeu_ps(d + kx * ld, pairMask, v);
        }
      }
      for (int oy = 2 * pairs; oy < oh; ++oy) {
        const int y = oy * sy - py + ky;
        float* d = rowBase + oy * ow;
        if (y < 0 || y >= H) {
          for (int kx = 0; kx < fw; ++kx) _mm512_mask_storeu_ps(d + kx * ld, outMask, _mm512_setzero_ps());
          continue;
        }
        const float* src = img + (static_cast<size_t>(c) * H + y) * W;
        for (int kx = 0; kx < fw; ++kx) {
          const int off = kx - px;  // output column ox reads input column ox + off
          const __m512 v = _mm512_maskz_loadu_ps(masks[kx], reinterpret_cast<const float*>(
                                                        reinterpret_cast<uintptr_t>(src) + off * 4L));
          _mm512_mask_storeu_ps(d + kx * ld, outMask, v);
        }
      }
    }
  }
}
inline void col2imNarrow(const float* col, int C, int H, int W, int fh, int fw, int sy, int py, int px, int oh, int ow,
                         float* img, size_t ld, bool add) {
  const __mmask16 rowMask = laneMask(0, W);
  __mmask16 masks[kNarrowMaxFilter];  // per kx: the image lanes some output column of this kx touches
  for (int kx = 0; kx < fw; ++kx) masks[kx] = laneMask(std::max(0, kx - px), std::min(W, ow + kx - px));
  // Gather form: each image row sums, in a register, every (ky, kx) column row that reads it
  // (ky ascending, then kx: the order of a scatter over ky), then is stored once, so no store
  // is ever reloaded (a masked store does not forward to the next load).
  for (int c = 0; c < C; ++c) {
    for (int y = 0; y < H; ++y) {
      float* dst = img + (static_cast<size_t>(c) * H + y) * W;
      __m512 acc = add ? _mm512_maskz_loadu_ps(rowMask, dst) : _mm512_setzero_ps();
      // image row y is filter row ky of output row oy when y + py = oy*sy + ky
      for (int ky = (y + py) % sy; ky < fh && ky <= y + py; ky += sy) {
        const int oy = (y + py - ky) / sy;
        if (oy >= oh) continue;
        const float* s = col + static_cast<size_t>((c * fh + ky) * fw) * ld + oy * ow;
        for (int kx = 0; kx < fw; ++kx) {
          const int off = kx - px;  // image column x gets column row entry x - off
          acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(masks[kx], reinterpret_cast<const float*>(
                                       reinterpret_cast<uintptr_t>(s + kx * ld) - off * 4L)));
        }
      }
      _mm512_mask_storeu_ps(dst, rowMask, acc);
    }
  }
}
#endif

// Short-row kernels for im2col/col2im: rows are only ow floats long, where a memcpy call
// or a vectorised loop with a scalar tail costs more than the copy (AVX-512: masked ops).
PD_HD inline void copyRow(float* __restrict d, const float* __restrict s, int n) {
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
  for (; n >= 16; n -= 16, d += 16, s += 16) _mm512_storeu_ps(d, _mm512_loadu_ps(s));
  if (n > 0) {
    const __mmask16 m = static_cast<__mmask16>((1u << n) - 1);
    _mm512_mask_storeu_ps(d, m, _mm512_maskz_loadu_ps(m, s));
  }
#else
  for (int j = 0; j < n; ++j) d[j] = s[j];
#endif
}
// (col2im's rows overlap from one kx to the next, so a masked store would stall the
// next masked load of the same bytes: plain loops there.)
PD_HD inline void addRow(float* __restrict d, const float* __restrict s, int n) {
  for (int j = 0; j < n; ++j) d[j] += s[j];
}
PD_HD inline void zeroRow(float* __restrict d, int n) {
  for (int j = 0; j < n; ++j) d[j] = 0;
}

// One row of col: ow outputs, those in [lo, hi) read src at ox * sx + off, the rest are 0.
PD_HD inline void fillColRow(float* __restrict d, const float* __restrict src, int lo, int hi, int off, int sx,
                             int ow) {
  zeroRow(d, lo);
  if (sx == 1) {
    copyRow(d + lo, src + lo + off, hi - lo);
  } else {
    for (int ox = lo; ox < hi; ++ox) d[ox] = src[ox * sx + off];
  }
  zeroRow(d + hi, ow - hi);
}

// Geometry of an unfolding: fh x fw patches of C-channel H x W images at strides sy/sx and
// paddings py/px, oh x ow patch positions.
struct Patches {
  int C, H, W, fh, fw, sy, sx, py, px, oh, ow;
  size_t rows() const { return static_cast<size_t>(C) * fh * fw; }    // k = (c*fh + ky)*fw + kx
  size_t positions() const { return static_cast<size_t>(oh) * ow; }  // q = oy*ow + ox
};

// im2col: col[(c*fh + ky)*fw + kx, s*N + oy*ow + ox] = image s [c, oy*sy - py + ky, ox*sx - px + kx]
// (0 outside) for `samples` images `imgStride` floats apart, N = oh*ow. Rows of col are `ld`
// floats apart (ld = 0: samples*N), so a caller can fill a column block of a wider buffer.
// One index per (sample, col row k, output row oy): it writes that stretch of ow values.
inline void im2colBatch(bool gpu, const float* img, size_t imgStride, size_t samples, const Patches& patches,
                        float* col, size_t ld = 0) {
  const Patches g = patches;
  const size_t K = g.rows(), N = g.positions();
  if (ld == 0) ld = samples * N;
  forEach2(gpu, samples * K, g.oh, [=] PD_HD(size_t sk, size_t row) {
    const size_t k = sk % K, s = sk / K;
    const int oy = static_cast<int>(row);
    const int kx = static_cast<int>(k % g.fw), ky = static_cast<int>(k / g.fw % g.fh);
    const int c = static_cast<int>(k / g.fw / g.fh);
    float* __restrict d = col + k * ld + s * N + oy * g.ow;
    const int y = oy * g.sy - g.py + ky;
    if (y < 0 || y >= g.H) {
      zeroRow(d, g.ow);
      return;
    }
    const float* __restrict src = img + s * imgStride + (static_cast<size_t>(c) * g.H + y) * g.W;
    int lo, hi;
    validRange(g.ow, g.sx, g.px, kx, g.W, lo, hi);
    const int off = kx - g.px;
    fillColRow(d, src, lo, hi, off, g.sx, g.ow);
  });
}

// The adjoint, in gather form: images (+)= col2im(col) (add = false overwrites them), same
// layout as im2colBatch. One index per image row (sample, channel c, row y) sums every value
// that came from it, so no two indices write one place.
inline void col2imBatch(bool gpu, const float* col, size_t ld, size_t samples, const Patches& patches, float* img,
                        size_t imgStride, bool add) {
  const Patches g = patches;
  const size_t N = g.positions();
  if (ld == 0) ld = samples * N;
  forEach2(gpu, samples * g.C, g.H, [=] PD_HD(size_t sc, size_t row) {
    const size_t s = sc / g.C;
    const int c = static_cast<int>(sc % g.C), y = static_cast<int>(row);
    float* __restrict d = img + s * imgStride + (static_cast<size_t>(c) * g.H + y) * g.W;
    if (!add) zeroRow(d, g.W);
    // image row y is filter row ky of output row oy when y + py = oy*sy + ky
    for (int ky = (y + g.py) % g.sy; ky < g.fh && ky <= y + g.py; ky += g.sy) {
      const int oy = (y + g.py - ky) / g.sy;
      if (oy >= g.oh) continue;
      for (int kx = 0; kx < g.fw; ++kx) {
        const float* __restrict src = col + static_cast<size_t>((c * g.fh + ky) * g.fw + kx) * ld + s * N + oy * g.ow;
        int lo, hi;
        validRange(g.ow, g.sx, g.px, kx, g.W, lo, hi);
        const int off = kx - g.px;
        if (g.sx == 1) {
          addRow(d + lo + off, src + lo, hi - lo);
        } else {
          for (int ox = lo; ox < hi; ++ox) d[ox * g.sx + off] += src[ox];
        }
      }
    }
  });
}

#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
// im2colRows at column stride 1 or 2 and at most 64 outputs a row, 16 outputs a register:
// per (c, ky, kx) the chunks' masks are found once, masked loads read zeros where the input
// column lies outside [0, W) (the padding; plain loads where a chunk lies inside), stride 2
// keeps the even lanes of two loads, and output rows off the image are zeroed in one run.
// About twice as fast as copying row by row (CPU time, 3x3 convs over 16 x 32 x 32 images).
constexpr int kWideMaxChunks = 4;
inline void im2colChunks(const float* img, const Patches& g, float* col, size_t ld) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const int chunks = (g.ow + 15) / 16;
  __mmask16 lo[kWideMaxChunks], hi[kWideMaxChunks], out[kWideMaxChunks];
  int x0[kWideMaxChunks];
  for (int c = 0; c < g.C; ++c) {
    for (int ky = 0; ky < g.fh; ++ky) {
      int oyLo = 0, oyHi = g.oh;  // the output rows whose input row lies inside
      while (oyLo < g.oh && oyLo * g.sy - g.py + ky < 0) ++oyLo;
      while (oyHi > oyLo && (oyHi - 1) * g.sy - g.py + ky >= g.H) --oyHi;
      for (int kx = 0; kx < g.fw; ++kx) {
        float* d = col + static_cast<size_t>((c * g.fh + ky) * g.fw + kx) * ld;
        for (int ch = 0; ch < chunks; ++ch) {
          x0[ch] = ch * 16 * g.sx + kx - g.px;
          lo[ch] = laneMask(-x0[ch], g.W - x0[ch]);
          hi[ch] = laneMask(-(x0[ch] + 16), g.W - x0[ch] - 16);
          out[ch] = laneMask(0, g.ow - ch * 16);
        }
        zeroRow(d, oyLo * g.ow);
        const float* row = img + (static_cast<size_t>(c) * g.H + (oyLo * g.sy - g.py + ky)) * g.W;
        for (int oy = oyLo; oy < oyHi; ++oy, row += static_cast<size_t>(g.sy) * g.W) {
          float* dr = d + static_cast<size_t>(oy) * g.ow;
          for (int ch = 0; ch < chunks; ++ch) {
            const float* s = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(row) + x0[ch] * 4L);
            __m512 v = lo[ch] == 0xffff ? _mm512_loadu_ps(s) : _mm512_maskz_loadu_ps(lo[ch], s);
            if (g.sx == 2) {
              const float* s1 = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(s) + 64);
              const __m512 h = hi[ch] == 0xffff ? _mm512_loadu_ps(s1) : _mm512_maskz_loadu_ps(hi[ch], s1);
              v = _mm512_permutex2var_ps(v, evens, h);
            }
            if (out[ch] == 0xffff) {
              _mm512_storeu_ps(dr + ch * 16, v);
            } else {
              _mm512_mask_storeu_ps(dr + ch * 16, out[ch], v);
            }
          }
        }
        zeroRow(d + static_cast<size_t>(oyHi) * g.ow, (g.oh - oyHi) * g.ow);
      }
    }
  }
}
#endif

// im2colBatch for one sample on the CPU, walked (c, ky, kx, oy) so that nothing per row is
// divided out of an index (im2colBatch spends more on that than on copying 32-float rows).
inline void im2colRows(const float* img, const Patches& g, float* col, size_t ld) {
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
  if (g.sx <= 2 && g.ow <= 16 * kWideMaxChunks) return im2colChunks(img, g, col, ld);
#endif
  for (int c = 0; c < g.C; ++c) {
    for (int ky = 0; ky < g.fh; ++ky) {
      for (int kx = 0; kx < g.fw; ++kx) {
        float* d = col + static_cast<size_t>((c * g.fh + ky) * g.fw + kx) * ld;
        int lo, hi;
        validRange(g.ow, g.sx, g.px, kx, g.W, lo, hi);
        const int off = kx - g.px;
        for (int oy = 0; oy < g.oh; ++oy, d += g.ow) {
          const int y = oy * g.sy - g.py + ky;
          if (y < 0 || y >= g.H) {
            zeroRow(d, g.ow);
            continue;
          }
          const float* __restrict src = img + (static_cast<size_t>(c) * g.H + y) * g.W;
          fillColRow(d, src, lo, hi, off, g.sx, g.ow);
        }
      }
    }
  }
}

// One sample on the CPU (rows of col `ld` floats apart, 0: oh*ow): the AVX-512 fast paths for
// stride-1 columns and rows of at most 16 floats, else im2colRows / the loops of col2imBatch.
inline void im2col(const float* img, int C, int H, int W, int fh, int fw, int sy, int sx, int py, int px, int oh,
                   int ow, float* col, size_t ld = 0) {
  if (ld == 0) ld = static_cast<size_t>(oh) * ow;
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
  if (sx == 1 && W <= 16 && fw <= kNarrowMaxFilter) return im2colNarrow(img, C, H, W, fh, fw, sy, py, px, oh, ow, col, ld);
#endif
  im2colRows(img, {C, H, W, fh, fw, sy, sx, py, px, oh, ow}, col, ld);
}

// The adjoint: img += col2im(col), or = when !add (same `ld` convention).
inline void col2im(const float* col, int C, int H, int W, int fh, int fw, int sy, int sx, int py, int px, int oh,
                   int ow, float* img, size_t ld, bool add) {
  if (ld == 0) ld = static_cast<size_t>(oh) * ow;
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
  if (sx == 1 && W <= 16 && fw <= kNarrowMaxFilter)
    return col2imNarrow(col, C, H, W, fh, fw, sy, py, px, oh, ow, img, ld, add);
#endif
  col2imBatch(false, col, ld, 1, {C, H, W, fh, fw, sy, sx, py, px, oh, ow}, img, 0, add);
}

// v1's output-size rule: 1 + floor((2p + img - f) / s) in caffe mode, ceil otherwise.
inline int outputSize(int img, int filter, int padding, int stride, bool caffeMode) {
  int num = 2 * padding + img - filter;
  if (caffeMode || num <= 0) return 1 + (num >= 0 ? num / stride : -((-num + stride - 1) / stride));
  return 1 + (num + stride - 1) / stride;
}

// A conv_conf message (v1 ConvConfig): geometry of one convolution input; checks that
// output_x/output_y agree with the image, filter, stride and padding. As v1's .proto
// documents, an unset y-side field takes its x-side value.
struct ConvGeom {
  int channels, filterChannels, groups;
  int fh, fw, sy, sx, py, px;
  int imgH, imgW;  // the "image" side of conv_conf (input of conv, output of convt)
  int outH, outW;  // the "output" side (output of conv, input of convt)

  explicit ConvGeom(const Json& c) {
    channels = static_cast<int>(c.getInt("channels"));
    filterChannels = static_cast<int>(c.getInt("filter_channels"));
    groups = static_cast<int>(c.getInt("groups"));
    fw = static_cast<int>(c.getInt("filter_size"));
    fh = c.has("filter_size_y") ? static_cast<int>(c.getInt("filter_size_y")) : fw;
    sx = static_cast<int>(c.getInt("stride"));
    sy = c.has("stride_y") ? static_cast<int>(c.getInt("stride_y")) : sx;
    px = static_cast<int>(c.getInt("padding"));
    py = c.has("padding_y") ? static_cast<int>(c.getInt("padding_y")) : px;
    imgW = static_cast<int>(c.getInt("img_size"));
    imgH = c.has("img_size_y") ? static_cast<int>(c.getInt("img_size_y")) : imgW;
    outW = static_cast<int>(c.getInt("output_x"));
    outH = c.has("output_y") ? static_cast<int>(c.getInt("output_y")) : outW;
    PADDLE_ENFORCE(channels > 0 && groups > 0 && fw > 0 && fh > 0 && sx > 0 && sy > 0 && px >= 0 && py >= 0,
                   ConfigError, "conv_conf needs positive channels, groups, filter_size, stride (got channels ",
                   channels, ", groups ", groups, ", filter ", fh, "x", fw, ", stride ", sy, "x", sx, ")");
    PADDLE_ENFORCE(imgW > 0 && imgH > 0 && outW > 0 && outH > 0, ConfigError,
                   "conv_conf needs img_size and output_x (got img ", imgH, "x", imgW, ", output ", outH, "x",
                   outW, ")");
    bool caffe = c.getBool("caffe_mode");
    int ex = outputSize(imgW, fw, px, sx, caffe), ey = outputSize(imgH, fh, py, sy, caffe);
    PADDLE_ENFORCE(ex == outW && ey == outH, ConfigError, "conv_conf.output_x/output_y ", outW, "/", outH,
                   " disagree with img_size ", imgW, "/", imgH, ", filter, stride and padding (expected ", ex,
                   "/", ey, ")");
  }
};

// Reads an ImageConfig-like message (channels, img_size, img_size_y).
struct ImageShape {
  int channels = 0, height = 0, width = 0;
  size_t size() const { return static_cast<size_t>(channels) * height * width; }
};
inline ImageShape readImage(const Json& c) {
  ImageShape s;
  s.channels = static_cast<int>(c.getInt("channels"));
  s.width = static_cast<int>(c.getInt("img_size"));
  s.height = c.has("img_size_y") ? static_cast<int>(c.getInt("img_size_y")) : s.width;
  return s;
}

}  // namespace image
}  // namespace paddle
