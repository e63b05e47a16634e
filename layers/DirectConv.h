// Direct convolution kernels on the CPU (AVX-512 engine): the conv layers' alternative to
// im2col + GEMM where that fits poorly (layers/ConvLayers.cpp picks per geometry).
#pragma once
#include <array>
#include <cstddef>
#include <utility>
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#endif

#include "engine/math/ThreadPool.h"
#include "layers/ImageUtils.h"

namespace paddle {
namespace image {

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

}  // namespace image
}  // namespace paddle
