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
    zeroRow(d, lo);
    if (g.sx == 1) {
      copyRow(d + lo, src + lo + off, hi - lo);
    } else {
      for (int ox = lo; ox < hi; ++ox) d[ox] = src[ox * g.sx + off];
    }
    zeroRow(d + hi, g.ow - hi);
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
          zeroRow(d, lo);
          if (g.sx == 1) {
            copyRow(d + lo, src + lo + off, hi - lo);
          } else {
            for (int ox = lo; ox < hi; ++ox) d[ox] = src[ox * g.sx + off];
          }
          zeroRow(d + hi, g.ow - hi);
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

// Direct convolution on the CPU (AVX-512 engine) where im2col + GEMM fits poorly: few
// image-side values per filter (K = C/groups * fh * fw, e.g. a first layer over 1 or 3
// channels: the GEMM's inner dimension is tiny and unfolding costs as much as multiplying),
// stride-1 columns and rows of at most 64 outputs. Outputs are cut into 16-lane chunks of a
// span of rows (DirectSpans). Masked loads read zeros outside the image (padding) and never
// fault. No col buffer: forward writes the layer's [filters, oh, ow] planes in place, the
// weight gradient reads the output gradient where it lies.
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
#define PADDLE_DIRECT_CONV 1
constexpr int kDirectMaxK = 64, kDirectMaxOw = 64, kDirectMaxFw = 16;
constexpr int kDirectFilters = 12;             // forward: accumulators of a filter block
constexpr int kGradFilters = 5, kGradTaps = 5;  // weight gradient: a 5 x 5 block of (filter, kx)
constexpr int kGradGroupBytes = 4 << 10;         // weight gradient: gy of the spans walked chunk by chunk

// p + off floats, for masked loads and stores (the address may lie outside the array), or plain
// ones whose lanes all lie inside.
inline const float* shifted(const float* p, long off) {
  return reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(p) + off * 4L);
}
// act::Relu's x < 0 ? 0 : x (a NaN passes, for the non-finite guard).
inline __m512 reluLanes(__m512 v) {
  return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_setzero_ps());
}
// The sum of v's lanes, in lane order (GCC 12 warns inside _mm512_reduce_add_ps).
inline float sumLanes(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s = 0;
  for (int j = 0; j < 16; ++j) s += t[j];
  return s;
}

// The kernels take output rows in spans: when a row ends in a chunk of at most 8 lanes, rows
// oy and oy + 1 are one span of 2*ow positions, contiguous in y and gy, so that row's tail and
// the next row's head share a register (else a span is one row). A span is cut into 16-lane
// chunks, every y and gy access a plain one but at the span's end. Lane j of chunk ch is
// position q0 + j of the span (q0 = 16*ch): lanes [0, split) lie in its first row, [split, n)
// in the second. Masked loads cost about twice plain ones here (AMD Zen 4), so a chunk whose
// lanes all read inside the image for every kx loads plainly: `whole` (one row, 16 lanes) or
// `halves` (8 + 8 lanes: two 256-bit loads).
struct DirectSpans {
  static constexpr int kMaxChunks = 2 * kDirectMaxOw / 16;
  struct Chunk {
    int q0, n, split;               // n: lanes inside the span
    __mmask16 out;                  // lanes [0, n)
    __mmask16 in[2][kDirectMaxFw];  // per row and kx: that row's lanes whose input column lies in the image
    bool whole, halves;
  };
  Chunk chunk[kMaxChunks];
  int rows, chunks, lastChunks;  // rows per span, chunks of a span, of a last row alone (odd oh)
  explicit DirectSpans(const Patches& g)
      : rows(g.ow % 16 != 0 && g.ow % 16 <= 8 ? 2 : 1), chunks((rows * g.ow + 15) / 16), lastChunks((g.ow + 15) / 16) {
    for (int ch = 0; ch < chunks; ++ch) {
      Chunk& k = chunk[ch];
      k.q0 = ch * 16;
      const int n = k.n = std::min(16, rows * g.ow - k.q0);
      k.split = std::clamp(g.ow - k.q0, 0, n);
      k.out = laneMask(0, n);
      bool inside = true;
      for (int kx = 0; kx < g.fw; ++kx) {
        const int off = k.q0 + kx - g.px;  // lane j of the first row reads input column off + j
        k.in[0][kx] = laneMask(std::max(0, -off), std::min(k.split, g.W - off));
        k.in[1][kx] = laneMask(std::max(k.split, g.ow - off), std::min(n, g.ow + g.W - off));
        inside = inside && (k.in[0][kx] | k.in[1][kx]) == k.out;
      }
      k.whole = inside && n == 16 && (k.split == 0 || k.split == 16);
      k.halves = inside && n == 16 && k.split == 8;
    }
  }
};

// How a chunk that reads rows `first` and/or `second` of its span loads x at tap kx0 + t
// (p0, p1: where lane 0 of each row reads at kx0).
struct DirectTapLoad {
  enum Kind { kWhole, kHalves, kTwoRows, kOneRow } kind;
  const float *p0, *p1;
  const __mmask16 *m0, *m1;
  DirectTapLoad(const DirectSpans::Chunk& k, bool first, bool second, const float* q0, const float* q1, int kx0)
      : kind(first && second ? (k.halves ? kHalves : kTwoRows) : k.whole ? kWhole : kOneRow),
        p0(first ? q0 : q1), p1(q1), m0(k.in[first ? 0 : 1] + kx0), m1(k.in[1] + kx0) {}
  // x at tap t for a kind known when compiling (directGradSpans), or at run time (operator())
  template <int L>
  static __m512 load(const float* p0, const float* p1, const __mmask16* m0, const __mmask16* m1, int t) {
    if (L == kWhole) return _mm512_loadu_ps(p0 + t);
    if (L == kHalves) return loadHalves(p0 + t, p1 + t + 8);
    if (L == kTwoRows) return _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(m0[t], shifted(p0, t)), m1[t], shifted(p1, t));
    return _mm512_maskz_loadu_ps(m0[t], shifted(p0, t));
  }
  __m512 operator()(int t) const {
    switch (kind) {
      case kWhole: return load<kWhole>(p0, p1, m0, m1, t);
      case kHalves: return load<kHalves>(p0, p1, m0, m1, t);
      case kTwoRows: return load<kTwoRows>(p0, p1, m0, m1, t);
      default: return load<kOneRow>(p0, p1, m0, m1, t);
    }
  }
};

// acc[f][t] += gy[f] * x at tap t over `spans` spans of rows that all lie inside the image, one
// chunk of each with a fixed way of loading x (Kind, DirectTapLoad's): gy at g (+ f*N), x lane 0
// at offset xo from x (the second row's lane 0 `second` further), both stepping a span at a time.
template <int NF, int TB, int Kind>
inline void directGradSpans(__m512 (&acc)[NF][TB], const float* g, size_t N, size_t gStep, const float* x, long xo,
                            long xStep, long second, int spans, __mmask16 out, const __mmask16* m0,
                            const __mmask16* m1) {
  for (int i = 0; i < spans; ++i, g += gStep, xo += xStep) {
    __m512 gv[NF];
#pragma GCC unroll 8
    for (int f = 0; f < NF; ++f)
      gv[f] = Kind == DirectTapLoad::kWhole || Kind == DirectTapLoad::kHalves ? _mm512_loadu_ps(g + f * N)
                                                                           : _mm512_maskz_loadu_ps(out, g + f * N);
    const float* p0 = shifted(x, xo);
    const float* p1 = shifted(x, xo + second);
#pragma GCC unroll 8
    for (int t = 0; t < TB; ++t) {
      const __m512 v = DirectTapLoad::load<Kind>(p0, p1, m0, m1, t);
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) acc[f][t] = _mm512_fmadd_ps(gv[f], v, acc[f][t]);
    }
  }
}

// NF filters of one sample: y[f] (+)= conv(x, w[f]) (+ bias), relu'd when asked.
template <int NF>
void directForwardBlock(const float* x, const Patches& g, const DirectSpans& sp, const float* w, size_t K,
                        const float* b, bool bPerOutput, bool add, bool relu, float* y) {
  const size_t N = g.positions();
  for (int oy = 0; oy < g.oh; oy += sp.rows) {
    const bool two = sp.rows == 2 && oy + 1 < g.oh;
    const int chunks = two || sp.rows == 1 ? sp.chunks : sp.lastChunks;
    for (int ch = 0; ch < chunks; ++ch) {
      const DirectSpans::Chunk& k = sp.chunk[ch];
      const __mmask16 out = two ? k.out : k.out & laneMask(0, k.split);
      const size_t o = static_cast<size_t>(oy) * g.ow + k.q0;
      auto load = [out](const float* p) { return out == 0xFFFF ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(out, p); };
      __m512 acc[NF];  // (loops over f unrolled: acc stays in registers)
#pragma GCC unroll 16
      for (int f = 0; f < NF; ++f)
        acc[f] = add ? load(y + f * N + o) : !b ? _mm512_setzero_ps() : bPerOutput ? load(b + f * N + o) : _mm512_set1_ps(b[f]);
      auto taps = [&](const float* wk, auto loadX) {
        for (int kx = 0; kx < g.fw; ++kx) {
          const __m512 v = loadX(kx);
#pragma GCC unroll 16
          for (int f = 0; f < NF; ++f) acc[f] = _mm512_fmadd_ps(_mm512_set1_ps(wk[f * K + kx]), v, acc[f]);
        }
      };
      // Where all the chunk's rows lie inside the image for every ky, and its lanes for every kx,
      // x loads plainly (rows W floats apart, p0/p1: lane 0 of each row); masked else.
      const int top = oy * g.sy - g.py, bottom = top + (two ? g.sy : 0) + g.fh - 1;
      const bool first = k.split > 0, second = two && k.split < k.n;  // rows this chunk reads
      const bool inside = top >= 0 && bottom < g.H && (k.whole || (first && second && k.halves));
      if (inside) {
        // p: lane 0 of the chunk's (first) row at (c, ky); the second row of a pair lies d further
        const long lane0 = static_cast<long>(top) * g.W + k.q0 - g.px, d = static_cast<long>(g.sy) * g.W - g.ow;
        const float* p0 = x + (first ? lane0 : lane0 + d);
        auto walk = [&](auto loadX) {
          const float* p = p0;
          const float* wk = w;
          for (int c = 0; c < g.C; ++c, p += static_cast<long>(g.H - g.fh) * g.W)
            for (int ky = 0; ky < g.fh; ++ky, p += g.W, wk += g.fw) taps(wk, [&loadX, p](int kx) { return loadX(p + kx); });
        };
        if (first && second)
          walk([d](const float* q) {
            return loadHalves(q, q + d + 8);
          });
        else
          walk([](const float* q) { return _mm512_loadu_ps(q); });
      } else {
        const long plane = static_cast<long>(g.H) * g.W;
        for (int ky = 0; ky < g.fh; ++ky) {
          const int iy = top + ky, iy1 = iy + g.sy;
          const bool in0 = first && iy >= 0 && iy < g.H, in1 = second && iy1 >= 0 && iy1 < g.H;
          if (!in0 && !in1) continue;
          // lane 0 of each row at channel 0 (masked loads only: the addresses may lie outside x)
          const long r0 = static_cast<long>(in0 ? iy : 0) * g.W + k.q0 - g.px;
          const long r1 = static_cast<long>(in1 ? iy1 : 0) * g.W + k.q0 - g.px - g.ow;
          auto channels = [&](auto loadX) {
            for (int c = 0; c < g.C; ++c)
              taps(w + static_cast<size_t>(c * g.fh + ky) * g.fw, [&loadX, c](int kx) { return loadX(c, kx); });
          };
          if (in0 && in1) {
            channels([&](int c, int kx) {
              const __m512 v = _mm512_maskz_loadu_ps(k.in[0][kx], shifted(x, r0 + c * plane + kx));
              return _mm512_mask_loadu_ps(v, k.in[1][kx], shifted(x, r1 + c * plane + kx));
            });
          } else {
            const long r = in0 ? r0 : r1;
            const __mmask16* m = k.in[in0 ? 0 : 1];
            channels([&, r, m](int c, int kx) { return _mm512_maskz_loadu_ps(m[kx], shifted(x, r + c * plane + kx)); });
          }
        }
      }
#pragma GCC unroll 16
      for (int f = 0; f < NF; ++f) {
        const __m512 v = relu ? reluLanes(acc[f]) : acc[f];
        if (out == 0xFFFF)
          _mm512_storeu_ps(y + f * N + o, v);
        else
          _mm512_mask_storeu_ps(y + f * N + o, out, v);
      }
    }
  }
}

// gw[f*K + t] += sum over the samples and output rows of gy[f] * x shifted by (c, ky, kx0 + t),
// for NF filters and TB consecutive kx: NF * TB accumulators stay in registers (5 x 5 with the
// NF gy chunks and one x chunk: 31 of the 32).
template <int NF, int TB>
void directWeightGradBlock(const float* x, size_t xStride, const float* gy, size_t gyStride, size_t samples,
                           const Patches& g, const DirectSpans& sp, int c, int ky, int kx0, float* gw, size_t K,
                           float* gb) {
  const size_t N = g.positions();
  // (every loop over f and t unrolled, so that acc lives in registers, not on the stack)
  __m512 acc[NF][TB];
  alignas(64) float bias[NF][16] = {};  // with gb: the lanes of gy's sums, summed after each sample while in cache
#pragma GCC unroll 8
  for (int f = 0; f < NF; ++f) {
#pragma GCC unroll 8
    for (int t = 0; t < TB; ++t) acc[f][t] = _mm512_setzero_ps();
  }
  // the spans [lo, hi) have all their rows inside the image at this ky; the rest go row by row
  const int spans = (g.oh + sp.rows - 1) / sp.rows;
  int lo = 0, hi = 0;
  for (int i = 0; i < spans; ++i) {
    const int top = i * sp.rows * g.sy - g.py + ky, bottom = top + (sp.rows - 1) * g.sy;
    const bool inside = top >= 0 && bottom < g.H && (i + 1) * sp.rows <= g.oh;
    if (inside && hi == lo) lo = hi = i;  // (the inside spans are consecutive)
    if (inside) hi = i + 1;
  }
  const long spanX = static_cast<long>(sp.rows) * g.sy * g.W, secondX = static_cast<long>(g.sy) * g.W - g.ow;
  const int group = std::max(1, kGradGroupBytes / (NF * sp.rows * g.ow * 4));
  for (size_t s = 0; s < samples; ++s) {
    const float* xs = x + s * xStride + static_cast<size_t>(c) * g.H * g.W;
    const float* gs = gy + s * gyStride;
    // a group of spans at a time, every chunk of it, so that the group's gy and x stay in L1
    for (int i0 = lo; i0 < hi; i0 += group) {
      const int count = std::min(group, hi - i0), oy = i0 * sp.rows;
      for (int ch = 0; ch < sp.chunks; ++ch) {
        const DirectSpans::Chunk& k = sp.chunk[ch];
        const float* g0 = gs + static_cast<size_t>(oy) * g.ow + k.q0;
        const long xo = static_cast<long>(oy * g.sy - g.py + ky) * g.W + k.q0 + kx0 - g.px;
        const bool first = k.split > 0, second = sp.rows == 2 && k.split < k.n;
        const DirectTapLoad kind(k, first, second, nullptr, nullptr, kx0);
        const long at = first ? xo : xo + secondX;
        const size_t gStep = static_cast<size_t>(sp.rows) * g.ow;
        switch (kind.kind) {
          case DirectTapLoad::kWhole:
            directGradSpans<NF, TB, DirectTapLoad::kWhole>(acc, g0, N, gStep, xs, at, spanX, secondX, count, k.out,
                                                           kind.m0, kind.m1);
            break;
          case DirectTapLoad::kHalves:
            directGradSpans<NF, TB, DirectTapLoad::kHalves>(acc, g0, N, gStep, xs, at, spanX, secondX, count, k.out,
                                                            kind.m0, kind.m1);
            break;
          case DirectTapLoad::kTwoRows:
            directGradSpans<NF, TB, DirectTapLoad::kTwoRows>(acc, g0, N, gStep, xs, at, spanX, secondX, count, k.out,
                                                             kind.m0, kind.m1);
            break;
          default:
            directGradSpans<NF, TB, DirectTapLoad::kOneRow>(acc, g0, N, gStep, xs, at, spanX, secondX, count, k.out,
                                                            kind.m0, kind.m1);
        }
      }
    }
    for (int i = 0; i < spans; ++i) {
      if (i == lo && hi > lo) i = hi;
      if (i >= spans) break;
      const int oy = i * sp.rows;
      const bool two = sp.rows == 2 && oy + 1 < g.oh;
      const int iy = oy * g.sy - g.py + ky, iy1 = iy + g.sy;
      const bool in0 = iy >= 0 && iy < g.H, in1 = two && iy1 >= 0 && iy1 < g.H;
      if (!in0 && !in1) continue;
      // rows outside the image (padding) are never read; row1 is where lane 0 of the second row would read
      const float* row = x + s * xStride + (static_cast<size_t>(c) * g.H + (in0 ? iy : 0)) * g.W;
      const float* row1 = x + s * xStride + (static_cast<size_t>(c) * g.H + (in1 ? iy1 : 0)) * g.W;
      const long off0 = kx0 - g.px, off1 = off0 - g.ow;
      const float* span = gy + s * gyStride + static_cast<size_t>(oy) * g.ow;
      const int chunks = two || sp.rows == 1 ? sp.chunks : sp.lastChunks;
      for (int ch = 0; ch < chunks; ++ch) {
        const DirectSpans::Chunk& k = sp.chunk[ch];
        const __mmask16 out = two ? k.out : k.out & laneMask(0, k.split);
        const bool first = k.split > 0 && in0, second = two && k.split < k.n && in1;  // rows this chunk reads
        if (!first && !second) continue;
        __m512 gv[NF];
        if (out == 0xFFFF) {
#pragma GCC unroll 8
          for (int f = 0; f < NF; ++f) gv[f] = _mm512_loadu_ps(span + f * N + k.q0);
        } else {
#pragma GCC unroll 8
          for (int f = 0; f < NF; ++f) gv[f] = _mm512_maskz_loadu_ps(out, span + f * N + k.q0);
        }
        // x at (kx0 + t) for the chunk's lanes: plain where they all read inside, else masked
        const DirectTapLoad load(k, first, second, shifted(row, off0 + k.q0), shifted(row1, off1 + k.q0), kx0);
#pragma GCC unroll 8
        for (int t = 0; t < TB; ++t) {
          const __m512 v = load(t);
#pragma GCC unroll 8
          for (int f = 0; f < NF; ++f) acc[f][t] = _mm512_fmadd_ps(gv[f], v, acc[f][t]);
        }
      }
    }
    if (gb) {
      const __mmask16 tail = laneMask(0, static_cast<int>(N % 16));
      __m512 b[NF];
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) b[f] = _mm512_load_ps(bias[f]);
      size_t q = 0;
      for (; q + 16 <= N; q += 16) {
#pragma GCC unroll 8
        for (int f = 0; f < NF; ++f) b[f] = _mm512_add_ps(b[f], _mm512_loadu_ps(gs + f * N + q));
      }
#pragma GCC unroll 8
      for (int f = 0; f < NF; ++f) _mm512_store_ps(bias[f], _mm512_add_ps(b[f], _mm512_maskz_loadu_ps(tail, gs + f * N + q)));
    }
  }
#pragma GCC unroll 8
  for (int f = 0; f < NF; ++f) {
#pragma GCC unroll 8
    for (int t = 0; t < TB; ++t) gw[f * K + t] += sumLanes(acc[f][t]);
    if (gb) gb[f] += sumLanes(_mm512_load_ps(bias[f]));
  }
}

using DirectForwardFn = void (*)(const float*, const Patches&, const DirectSpans&, const float*, size_t, const float*,
                                 bool, bool, bool, float*);
using DirectGradFn = void (*)(const float*, size_t, const float*, size_t, size_t, const Patches&,
                              const DirectSpans&, int, int, int, float*, size_t, float*);
template <int... I>
constexpr std::array<DirectForwardFn, sizeof...(I)> directForwardTable(std::integer_sequence<int, I...>) {
  return {&directForwardBlock<I + 1>...};
}
template <int... I>
constexpr std::array<DirectGradFn, sizeof...(I)> directGradTable(std::integer_sequence<int, I...>) {
  return {&directWeightGradBlock<I / kGradTaps + 1, I % kGradTaps + 1>...};
}
// Cuts n into ceil(n / most) near-equal blocks: block b is [begin(b), begin(b + 1)).
struct EvenBlocks {
  int n, count;
  EvenBlocks(int n_, int most) : n(n_), count((n_ + most - 1) / most) {}
  int begin(int b) const { return static_cast<int>(static_cast<long>(n) * b / count); }
};
#endif

// Whether the direct kernels below take this geometry (never without AVX-512).
inline bool directConvFits(const Patches& g) {
#ifdef PADDLE_DIRECT_CONV
  return g.sx == 1 && g.ow <= kDirectMaxOw && g.fw <= kDirectMaxFw && g.rows() <= static_cast<size_t>(kDirectMaxK);
#else
  (void)g;
  return false;
#endif
}

// One sample, one group of M filters: y [M, oh, ow] (+)= conv(x [C, H, W], w [M, K]), plus the
// bias b (per filter, or per output when bPerOutput; none when null), relu'd when asked.
inline void directConvForward(const float* x, const Patches& g, const float* w, int M, const float* b,
                              bool bPerOutput, bool add, bool relu, float* y) {
#ifdef PADDLE_DIRECT_CONV
  static constexpr auto kBlocks = directForwardTable(std::make_integer_sequence<int, kDirectFilters>{});
  const DirectSpans sp(g);
  const size_t K = g.rows(), N = g.positions();
  const EvenBlocks fb(M, kDirectFilters);
  for (int b0 = 0; b0 < fb.count; ++b0) {
    const int f0 = fb.begin(b0), nf = fb.begin(b0 + 1) - f0;
    const float* bb = !b ? nullptr : bPerOutput ? b + f0 * N : b + f0;
    kBlocks[nf - 1](x, g, sp, w + f0 * K, K, bb, bPerOutput, add, relu, y + f0 * N);
  }
#else
  (void)x, (void)g, (void)w, (void)M, (void)b, (void)bPerOutput, (void)add, (void)relu, (void)y;
  throw std::logic_error("directConvForward needs the AVX-512 engine");
#endif
}

// One group of M filters over `samples` samples: gw [M, K] += the weight gradient, from images
// x (rows xStride apart, at the group's first channel) and output gradients gy (rows gyStride
// apart, at the group's first filter); gb [M] (when given) += the shared bias's. Work units
// (filter block, c, ky, kx block) own their gw entries and are split across the pool (one
// fork per call); each thread runs its units block by block over samples that stay in cache, a
// unit adding its blocks' sums in sample order: the same bits at any thread count.
inline void directConvWeightGrad(const float* x, size_t xStride, const float* gy, size_t gyStride, size_t samples,
                                 const Patches& g, int M, float* gw, float* gb) {
#ifdef PADDLE_DIRECT_CONV
  static constexpr auto kBlocks = directGradTable(std::make_integer_sequence<int, kGradFilters * kGradTaps>{});
  const DirectSpans sp(g);
  const size_t K = g.rows(), N = g.positions();
  const EvenBlocks fb(M, kGradFilters), tb(g.fw, kGradTaps);
  const size_t units = static_cast<size_t>(fb.count) * g.C * g.fh * tb.count;
  const size_t perSample = M * N + static_cast<size_t>(g.C) * g.H * g.W;
  const size_t block = std::max<size_t>(1, (size_t(1) << 16) / perSample);  // ~256 KB of x and gy
  parallelFor(units, 1, [&](size_t u0, size_t u1) {
    for (size_t s0 = 0; s0 < samples; s0 += block) {
      const size_t n = std::min(block, samples - s0);
      for (size_t u = u0; u < u1; ++u) {
        const int kb = static_cast<int>(u % tb.count), ky = static_cast<int>(u / tb.count % g.fh);
        const int c = static_cast<int>(u / tb.count / g.fh % g.C), b0 = static_cast<int>(u / tb.count / g.fh / g.C);
        const int f0 = fb.begin(b0), nf = fb.begin(b0 + 1) - f0, kx0 = tb.begin(kb), nt = tb.begin(kb + 1) - kx0;
        float* gbUnit = gb && c == 0 && ky == 0 && kb == 0 ? gb + f0 : nullptr;  // one unit per filter block
        kBlocks[(nf - 1) * kGradTaps + nt - 1](x + s0 * xStride, xStride, gy + s0 * gyStride + f0 * N, gyStride, n, g,
                                                sp, c, ky, kx0, gw + f0 * K + (c * g.fh + ky) * g.fw + kx0, K, gbUnit);
      }
    }
  });
#else
  (void)x, (void)xStride, (void)gy, (void)gyStride, (void)samples, (void)g, (void)M, (void)gw, (void)gb;
  throw std::logic_error("directConvWeightGrad needs the AVX-512 engine");
#endif
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
