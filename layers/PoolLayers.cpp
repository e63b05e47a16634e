// Image pooling family (forEach kernels: CPU loops or GPU grids):
//   "pool":   max-projection / avg-projection (cudnn-max-pool / cudnn-avg-pool run the
//             same kernels); output sizes come from pool_conf (the parser applies v1's
//             ceil/caffe rule). Max windows are clipped to the image; average divides by
//             the window clipped to image + padding (v1 / caffe convention).
//   "spp":    spatial pyramid pooling, levels 0..h-1 with 2^l x 2^l bins, concatenated.
//   "maxout": max over groups of consecutive channels.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "layers/ImageUtils.h"
#include "layers/Layer.h"

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

// Window of output (oy, ox): rows [hs, he) x columns [ws, we) clipped to the image;
// size: the window clipped to image + padding (the average's divisor).
struct Window {
  int hs, he, ws, we, size;
};
PD_HD inline Window window(const PoolGeom& g, int oy, int ox) {
  Window w;
  w.hs = oy * g.strideY - g.padY;
  w.ws = ox * g.strideX - g.padX;
  w.he = w.hs + g.sizeY < g.H + g.padY ? w.hs + g.sizeY : g.H + g.padY;
  w.we = w.ws + g.sizeX < g.W + g.padX ? w.ws + g.sizeX : g.W + g.padX;
  w.size = (w.he - w.hs) * (w.we - w.ws);
  w.hs = w.hs > 0 ? w.hs : 0;
  w.ws = w.ws > 0 ? w.ws : 0;
  w.he = w.he < g.H ? w.he : g.H;
  w.we = w.we < g.W ? w.we : g.W;
  return w;
}

// Every window lies inside the image (no padding, none cut off at the far edge: LeNet's 2x2
// stride-2 pools), so poolInteriorCpu may run.
bool windowsInside(const PoolGeom& g) {
  return g.padX == 0 && g.padY == 0 && (g.outW - 1) * g.strideX + g.sizeX <= g.W &&
         (g.outH - 1) * g.strideY + g.sizeY <= g.H;
}

// One output row of poolInteriorCpu, up to kStrip outputs from `x` (the image row of window
// offset (0, 0) of the first output) at stride SX (0: the runtime `sx`): m and at live in
// locals, so the compiler knows nothing aliases them and vectorises the selects.
constexpr int kStrip = 16;
template <int SX>
void poolStrip(const PoolGeom& g, const float* x, int first, int n, int sx, float* out, int* idx) {
  if (SX) sx = SX;
  float m[kStrip];
  int at[kStrip];
  for (int j = 0; j < n; ++j) m[j] = g.isMax ? -FLT_MAX : 0.0f, at[j] = -1;
  for (int ky = 0; ky < g.sizeY; ++ky) {
    for (int kx = 0; kx < g.sizeX; ++kx) {
      const int off = ky * g.W + kx;  // this (ky, kx) in the first output's window
      const float* src = x + off;
      if (g.isMax) {
        for (int j = 0; j < n; ++j) {
          const float v = src[j * sx];
          const bool more = v > m[j];
          m[j] = more ? v : m[j];
          at[j] = more ? first + off + j * sx : at[j];
        }
      } else {
        for (int j = 0; j < n; ++j) m[j] += src[j * sx];
      }
    }
  }
  const float area = static_cast<float>(g.sizeY * g.sizeX);
  for (int j = 0; j < n; ++j) {
    out[j] = g.isMax ? (at[j] >= 0 ? m[j] : 0.0f) : m[j] / area;
    idx[j] = at[j];
  }
}

// poolForward on the CPU for windowsInside geometries, one output row (sample, channel, oy) per
// index, in strips: the window offsets (ky, kx) run outside, the strip's outputs inside, so the
// inner loop vectorises. Each output still sees its window in row-major order, with the same
// comparisons and sums as poolForward's kernel: the same bits.
void poolInteriorCpu(const PoolGeom& g, const float* in, size_t inWidth, size_t rows, float* out, int* idx,
                     size_t outWidth, size_t off) {
  const size_t planes = static_cast<size_t>(g.C) * g.outH;
  const int ow = g.outW, sx = g.strideX;
  auto outputRow = [&](size_t r) {
    const size_t n = r / planes;
    const int plane = static_cast<int>(r - n * planes), c = plane / g.outH, oy = plane % g.outH;
    const int rowStart = (c * g.H + oy * g.strideY) * g.W;  // window row 0 of this output row
    const size_t o = n * outWidth + off + static_cast<size_t>(plane) * ow;
    for (int j0 = 0; j0 < ow; j0 += kStrip) {
      const int cnt = std::min(kStrip, ow - j0), first = rowStart + j0 * sx;
      const float* x = in + n * inWidth + first;
      if (sx == 2) poolStrip<2>(g, x, first, cnt, sx, out + o + j0, idx + o + j0);
      else if (sx == 1) poolStrip<1>(g, x, first, cnt, sx, out + o + j0, idx + o + j0);
      else poolStrip<0>(g, x, first, cnt, sx, out + o + j0, idx + o + j0);
    }
  };
  const size_t grain = kParallelGrain / (static_cast<size_t>(ow) * g.sizeX * g.sizeY) + 1;
  parallelFor(rows * planes, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) outputRow(r);
  });
}

#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
// 2x2 windows at stride 2 inside the image (LeNet's pools, and most CNNs'): output row oy reads
// image rows 2oy and 2oy+1; 16 outputs take 32 floats of each, split into even and odd
// columns by two permutes. Images 8 wide (LeNet's second pool) go four output rows to a
// register instead: their eight image rows are four registers of two rows each. The max and its
// offset (or the sum) follow the window's row-major order with poolStrip's comparisons and sums:
// the same bits. Backward, whose windows do not overlap, interleaves each output's gradient back
// into its window's four places (zeros elsewhere) and writes whole image rows: no scatter.
bool isPool2x2(const PoolGeom& g) {
  return g.sizeX == 2 && g.sizeY == 2 && g.strideX == 2 && g.strideY == 2 && windowsInside(g);
}
bool isPool2x2Width8(const PoolGeom& g) { return isPool2x2(g) && g.W == 8 && g.outW == 4; }

// Lane indices: even and odd columns of a 32-float pair of registers, and back.
inline __m512i evenLanes() { return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30); }
inline __m512i oddLanes() { return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31); }
inline __m512i interleaveLo() { return _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23); }
inline __m512i interleaveHi() { return _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31); }

// f(n, o, x0, count, lanes) for every 16-output chunk (n: sample, o: offset of its first output
// in the sample's output, x0: of that output's window in the image row, count: outputs, lanes:
// per lane the offset of its window from x0), across the pool: chunks of one output row, or of
// four when the image is 8 wide.
template <typename F>
void forEach2x2Chunk(const PoolGeom& g, size_t rows, F&& f) {
  const bool quads = isPool2x2Width8(g);
  const int perPlane = quads ? (g.outH + 3) / 4 : g.outH;  // (channel, chunk row) units of a sample
  const size_t units = static_cast<size_t>(g.C) * perPlane;
  const __m512i lanes = quads ? _mm512_setr_epi32(0, 2, 4, 6, 16, 18, 20, 22, 32, 34, 36, 38, 48, 50, 52, 54) : evenLanes();
  parallelFor(rows * units, kParallelGrain / (quads ? 64 : 4 * static_cast<size_t>(g.outW)) + 1,
              [&](size_t b, size_t e) {
    for (size_t r = b; r < e; ++r) {
      const size_t n = r / units;
      const int unit = static_cast<int>(r - n * units), c = unit / perPlane, row = unit % perPlane;
      if (quads) {
        const int oy = 4 * row;
        f(n, static_cast<size_t>(c * g.outH + oy) * 4, (c * g.H + 2 * oy) * 8, 4 * std::min(4, g.outH - oy), lanes);
        continue;
      }
      const int x0 = (c * g.H + 2 * row) * g.W;
      for (int ox0 = 0; ox0 < g.outW; ox0 += 16)
        f(n, static_cast<size_t>(c * g.outH + row) * g.outW + ox0, x0 + 2 * ox0, std::min(16, g.outW - ox0), lanes);
    }
  });
}

// r[0, n) += v[0, n), or = when set: whole registers where n allows, since a masked store
// stalls a later load of the same 64 bytes (the next image row's; LeNet's rows are 24 and 8 floats).
inline void writePart(float* r, __m512 v, int n, bool set) {
  if (n >= 16) {
    _mm512_storeu_ps(r, set ? v : _mm512_add_ps(_mm512_loadu_ps(r), v));
#ifdef __AVX512DQ__
  } else if (n == 8) {  // (GCC 12 warns inside _mm512_castps512_ps256)
    const __m256 h = _mm512_extractf32x8_ps(v, 0);
    _mm256_storeu_ps(r, set ? h : _mm256_add_ps(_mm256_loadu_ps(r), h));
#endif
  } else if (n > 0) {
    const __mmask16 m = image::laneMask(0, n);
    _mm512_mask_storeu_ps(r, m, set ? v : _mm512_add_ps(_mm512_maskz_loadu_ps(m, r), v));
  }
}

// 128-bit blocks (kImm as _mm512_shuffle_f32x4's, whose undefined pass-through GCC 12 warns about).
template <int kImm>
inline __m512 shuffleBlocks(__m512 a, __m512 b) { return _mm512_maskz_shuffle_f32x4(0xffff, a, b, kImm); }
// v[0..3] = the window places (0,0), (0,1), (1,0), (1,1) of a chunk: count / 4 registers of two
// image rows each (8 wide) from r0, or two rows of 2 * count floats at r0 and r0 + W.
inline void loadWindows(const float* r0, int W, int count, bool quads, __m512 v[4]) {
  if (quads) {
    __m512 z[4];
    for (int k = 0; k < 4; ++k) z[k] = _mm512_maskz_loadu_ps(k < count / 4 ? 0xffff : 0, r0 + 16 * k);
    // per pair of registers: the even (then odd) columns of the upper rows, then of the lower
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 16, 18, 20, 22, 8, 10, 12, 14, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512 e01 = _mm512_permutex2var_ps(z[0], even, z[1]), e23 = _mm512_permutex2var_ps(z[2], even, z[3]);
    const __m512 o01 = _mm512_permutex2var_ps(z[0], odd, z[1]), o23 = _mm512_permutex2var_ps(z[2], odd, z[3]);
    v[0] = shuffleBlocks<0x44>(e01, e23), v[2] = shuffleBlocks<0xee>(e01, e23);
    v[1] = shuffleBlocks<0x44>(o01, o23), v[3] = shuffleBlocks<0xee>(o01, o23);
    return;
  }
  const __mmask16 lo = image::laneMask(0, 2 * count), hi = image::laneMask(0, 2 * count - 16);
  for (int y = 0; y < 2; ++y) {
    const __m512 a = _mm512_maskz_loadu_ps(lo, r0 + y * W), b = _mm512_maskz_loadu_ps(hi, r0 + y * W + 16);
    v[2 * y] = _mm512_permutex2var_ps(a, evenLanes(), b);
    v[2 * y + 1] = _mm512_permutex2var_ps(a, oddLanes(), b);
  }
}
// The reverse of loadWindows: the image rows (+)= the window places v[0..3].
inline void storeWindows(float* r0, int W, int count, bool quads, const __m512 v[4], bool set) {
  if (quads) {
    const __m512 e01 = shuffleBlocks<0x44>(v[0], v[2]), e23 = shuffleBlocks<0xee>(v[0], v[2]);
    const __m512 o01 = shuffleBlocks<0x44>(v[1], v[3]), o23 = shuffleBlocks<0xee>(v[1], v[3]);
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 8, 24, 9, 25, 10, 26, 11, 27);
    const __m512i second = _mm512_add_epi32(first, _mm512_set1_epi32(4));
    const __m512 z[4] = {_mm512_permutex2var_ps(e01, first, o01), _mm512_permutex2var_ps(e01, second, o01),
                         _mm512_permutex2var_ps(e23, first, o23), _mm512_permutex2var_ps(e23, second, o23)};
    for (int k = 0; k < count / 4; ++k) writePart(r0 + 16 * k, z[k], 16, set);
    return;
  }
  for (int y = 0; y < 2; ++y) {
    float* r = r0 + y * W;
    writePart(r, _mm512_permutex2var_ps(v[2 * y], interleaveLo(), v[2 * y + 1]), 2 * count, set);
    writePart(r + 16, _mm512_permutex2var_ps(v[2 * y], interleaveHi(), v[2 * y + 1]), 2 * count - 16, set);
  }
}

void pool2x2Forward(const PoolGeom& g, const float* in, size_t inWidth, size_t rows, float* out, int* idx,
                    size_t outWidth, size_t off) {
  const int W = g.W;
  const bool isMax = g.isMax, quads = isPool2x2Width8(g);
  // (always_inline, here and in the backward: GCC made each chunk a call that reloaded the captures)
  forEach2x2Chunk(g, rows, [&](size_t n, size_t o, int x0, int count, __m512i lanes) __attribute__((always_inline)) {
    const __mmask16 om = image::laneMask(0, count);
    __m512 v[4];
    const float* src = in + n * inWidth + x0;
    // the image rows four output rows on: a conv's output pooled here is rarely still in cache
    // (LeNet's first: 2.9 MB a replica), and the prefetchers left this loop waiting (2.5% of a
    // LeNet bf16 step in CPU time; the same for the backward's writes made no difference)
    for (int line = 0; line < 4; ++line)
      _mm_prefetch(reinterpret_cast<const char*>(src + 8 * W) + 64 * line, _MM_HINT_T0);
    loadWindows(src, W, count, quads, v);
    float* dst = out + n * outWidth + off + o;
    if (!isMax) {
      __m512 sum = _mm512_setzero_ps();
      for (int k = 0; k < 4; ++k) sum = _mm512_add_ps(sum, v[k]);
      _mm512_mask_storeu_ps(dst, om, _mm512_div_ps(sum, _mm512_set1_ps(4.0f)));
      return;
    }
    const __m512i base = _mm512_add_epi32(_mm512_set1_epi32(x0), lanes);
    const int offsets[4] = {0, 1, W, W + 1};
    __m512 m = _mm512_set1_ps(-FLT_MAX);
    __m512i at = _mm512_set1_epi32(-1);
    for (int k = 0; k < 4; ++k) {
      const __mmask16 more = _mm512_cmp_ps_mask(v[k], m, _CMP_GT_OQ);
      m = _mm512_mask_mov_ps(m, more, v[k]);
      at = _mm512_mask_mov_epi32(at, more, _mm512_add_epi32(base, _mm512_set1_epi32(offsets[k])));
    }
    const __mmask16 found = _mm512_cmpge_epi32_mask(at, _mm512_setzero_si512());
    _mm512_mask_storeu_ps(dst, om, _mm512_maskz_mov_ps(found, m));
    _mm512_mask_storeu_epi32(idx + n * outWidth + off + o, om, at);
  });
}

// gin += the gradient of a pool2x2Forward (max: at the recorded offsets; average: a quarter
// each); gin = it when `set` (the windows tile the image). With yOut (the max pooling's output),
// each gradient is first multiplied by the input's relu derivative there, y > 0 ? 1 : 0.
void pool2x2Backward(const PoolGeom& g, const float* gout, const int* idx, const float* yOut, size_t rows,
                     size_t outWidth, float* gin, size_t inWidth, bool set) {
  const int W = g.W;
  const bool isMax = g.isMax, quads = isPool2x2Width8(g);
  forEach2x2Chunk(g, rows, [&](size_t n, size_t o, int x0, int count, __m512i lanes) __attribute__((always_inline)) {
    const __mmask16 om = image::laneMask(0, count);
    __m512 gv = _mm512_maskz_loadu_ps(om, gout + n * outWidth + o);
    if (yOut) {
      const __mmask16 live = _mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(om, yOut + n * outWidth + o), _mm512_setzero_ps(), _CMP_GT_OQ);
      gv = _mm512_mul_ps(gv, _mm512_maskz_mov_ps(live, _mm512_set1_ps(1.0f)));
    }
    __m512 v[4];  // what each of the window's four places gets
    if (isMax) {
      const __m512i at = _mm512_maskz_loadu_epi32(om, idx + n * outWidth + o);
      const __m512i base = _mm512_add_epi32(_mm512_set1_epi32(x0), lanes);
      const int offsets[4] = {0, 1, W, W + 1};
      for (int k = 0; k < 4; ++k)
        v[k] = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(at, _mm512_add_epi32(base, _mm512_set1_epi32(offsets[k]))),
                                   gv);
    } else {
      v[0] = v[1] = v[2] = v[3] = _mm512_div_ps(gv, _mm512_set1_ps(4.0f));
    }
    storeWindows(gin + n * inWidth + x0, W, count, quads, v, set);
  });
}
#endif

// One pooling of every sample: in [rows, inWidth] (images [C, H, W]) -> the block of
// columns [off, off + outSize) of out [rows, outWidth] ([C, outH, outW]). Max pooling
// records in idx (laid out like out) each maximum's offset in the input row (the first
// maximum of the window; -1 for an empty window).
void poolForward(bool gpu, const PoolGeom& geom, const float* in, size_t inWidth, size_t rows, float* out, int* idx,
                 size_t outWidth, size_t off) {
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
  if (!gpu && !reverseKernelOrder() && isPool2x2(geom)) return pool2x2Forward(geom, in, inWidth, rows, out, idx, outWidth, off);
#endif
  if (!gpu && !reverseKernelOrder() && windowsInside(geom))
    return poolInteriorCpu(geom, in, inWidth, rows, out, idx, outWidth, off);
  const PoolGeom g = geom;
  const size_t planes = static_cast<size_t>(g.C) * g.outH;  // (channel, output row) pairs per sample
  forEach2Parallel(gpu, rows * planes, g.outW, [=] PD_HD(size_t r, size_t ox) {
    const size_t n = r / planes;
    const int plane = static_cast<int>(r - n * planes), c = plane / g.outH, oy = plane % g.outH;
    const Window w = window(g, oy, static_cast<int>(ox));
    const float* x = in + n * inWidth + static_cast<size_t>(c) * g.H * g.W;
    const size_t o = n * outWidth + off + static_cast<size_t>(plane) * g.outW + ox;
    if (g.isMax) {
      float m = -FLT_MAX;
      int at = -1;
      for (int y = w.hs; y < w.he; ++y)
        for (int xx = w.ws; xx < w.we; ++xx)
          if (x[y * g.W + xx] > m) m = x[y * g.W + xx], at = (c * g.H + y) * g.W + xx;
      out[o] = at >= 0 ? m : 0.0f;
      idx[o] = at;
    } else {
      float s = 0;
      for (int y = w.hs; y < w.he; ++y)
        for (int xx = w.ws; xx < w.we; ++xx) s += x[y * g.W + xx];
      out[o] = w.size > 0 ? s / w.size : 0.0f;
    }
  });
}

// Max pooling's backward for every pooling at once: gin[n, idx] += gout[n, j]. Windows
// may overlap, so two outputs can share a maximum: atomic adds (on the CPU a thread owns
// whole samples).
void maxPoolBackward(bool gpu, const float* gout, const int* idx, size_t rows, size_t outWidth, float* gin,
                     size_t inWidth) {
  forEach2Parallel(gpu, rows, outWidth, [=] PD_HD(size_t n, size_t j) {
    const int at = idx[n * outWidth + j];
    if (at >= 0) atomicAddF(gin + n * inWidth + at, gout[n * outWidth + j]);
  });
}

// Average pooling's backward for one pooling (the block at `off` of gout): every output
// spreads its gradient over its window (atomic adds: windows may overlap). One index per
// row of outputs.
void avgPoolBackward(bool gpu, const PoolGeom& geom, const float* gout, size_t outWidth, size_t off, size_t rows,
                     float* gin, size_t inWidth) {
  const PoolGeom g = geom;
  forEach2Parallel(gpu, rows * g.C, g.outH, [=] PD_HD(size_t nc, size_t row) {
    const size_t n = nc / g.C;
    const int c = static_cast<int>(nc % g.C), oy = static_cast<int>(row);
    const float* gy = gout + n * outWidth + off + (static_cast<size_t>(c) * g.outH + oy) * g.outW;
    float* gx = gin + n * inWidth + static_cast<size_t>(c) * g.H * g.W;
    for (int ox = 0; ox < g.outW; ++ox) {
      const Window w = window(g, oy, ox);
      if (w.size <= 0) continue;
      const float d = gy[ox] / w.size;
      for (int y = w.hs; y < w.he; ++y)
        for (int xx = w.ws; xx < w.we; ++xx) atomicAddF(gx + y * g.W + xx, d);
    }
  });
}

// One window an image, inside it (ResNet's global average pool, 8x8 to 1x1): a testing
// forward sums each channel's window in row-major order, as poolStrip does (the same bits), eight
// channels at a time so that their sums run side by side instead of one dependent chain each.
bool isOneWindowAverage(const PoolGeom& g) { return !g.isMax && g.outH == 1 && g.outW == 1 && windowsInside(g); }

void poolOneWindowAverage(const PoolGeom& g, const float* in, size_t inWidth, size_t rows, float* out, int* idx,
                          size_t outWidth, size_t off) {
  constexpr int kSide = 8;
  const size_t plane = static_cast<size_t>(g.H) * g.W;
  const float area = static_cast<float>(g.sizeY * g.sizeX);
  parallelFor(rows, kParallelGrain / (g.inSize() + 1) + 1, [&](size_t n0, size_t n1) {
    for (size_t n = n0; n < n1; ++n) {
      for (int c0 = 0; c0 < g.C; c0 += kSide) {
        const int cs = std::min(kSide, g.C - c0);
        const float* x = in + n * inWidth + c0 * plane;
        float sum[kSide] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int ky = 0; ky < g.sizeY; ++ky)
          for (int kx = 0; kx < g.sizeX; ++kx)
            for (int c = 0; c < cs; ++c) sum[c] += x[c * plane + ky * g.W + kx];
        float* o = out + n * outWidth + off + c0;
        int* at = idx + n * outWidth + off + c0;
        for (int c = 0; c < cs; ++c) o[c] = sum[c] / area, at[c] = -1;
      }
    }
  });
}

// Layers made of several poolings of the same input, each writing its own column block.
class PoolingLayerBase : public Layer, public InputGradientSetter {
 public:
  using Layer::Layer;

  void forward(PassType pass) override {
    pass_ = pass;
    const Argument& in = input(0);
    const size_t rows = in.batchSize();
    PADDLE_ENFORCE(in.value.width() == inputs_[0]->size(), DataError, "layer '", name_, "': input is ",
                   shapeStr(in.value), ", expected width ", inputs_[0]->size());
    resetOutput(rows, size_);
    idx_.setDevice(useGpu_);
    idx_.resize(rows, size_);
    size_t off = 0;
    for (const PoolGeom& g : geoms_) {
      if (pass == PASS_TEST && !useGpu_ && !reverseKernelOrder() && isOneWindowAverage(g)) {
        poolOneWindowAverage(g, in.value.data(), in.value.width(), rows, output_.value.data(), idx_.data(), size_, off);
        off += g.outSize();
        continue;
      }
      poolForward(useGpu_, g, in.value.data(), in.value.width(), rows, output_.value.data(), idx_.data(), size_, off);
      off += g.outSize();
    }
    output_.frameHeight = frameH_;
    output_.frameWidth = frameW_;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    const size_t rows = output_.grad.height();
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
    if (fast2x2()) {
      pool2x2Backward(geoms_[0], output_.grad.data(), idx_.data(), appliesInputRelu(0) ? output_.value.data() : nullptr,
                      rows, size_, in.grad.data(), in.grad.width(), setsInputGrad(0));
      return;
    }
#endif
    if (geoms_[0].isMax) {  // the poolings of a layer share their type
      maxPoolBackward(useGpu_, output_.grad.data(), idx_.data(), rows, size_, in.grad.data(), in.grad.width());
      return;
    }
    size_t off = 0;
    for (const PoolGeom& g : geoms_) {
      avgPoolBackward(useGpu_, g, output_.grad.data(), size_, off, rows, in.grad.data(), in.grad.width());
      off += g.outSize();
    }
  }

  // The 2x2 path sets the whole input gradient where the windows tile the image; a max pool
  // knows the relu derivative of each place it writes from its own output (the maximum).
  bool canSetInputGradient(bool relu) const override {
    const PoolGeom& g = geoms_[0];
    return fast2x2() && 2 * g.outW == g.W && 2 * g.outH == g.H &&
           (!relu || (g.isMax && activation_->isLinear() && dropRate_ == 0));
  }

  void releaseForwardState() override {
    Layer::releaseForwardState();
    idx_ = IVector();  // the max positions, remade by the recomputed forward
    idx_.setDevice(useGpu_);
  }

 protected:
  // Whether backward takes the AVX-512 2x2 path (one pooling of 2x2 windows at stride 2).
  bool fast2x2() const {
#if defined(__AVX512F__) && !defined(__CUDA_ARCH__)
    return !useGpu_ && !reverseKernelOrder() && geoms_.size() == 1 && isPool2x2(geoms_[0]);
#else
    return false;
#endif
  }
  void finishInit() {
    size_t total = 0;
    for (const PoolGeom& g : geoms_) total += g.outSize();
    checkInputSize(0, geoms_[0].inSize());
    PADDLE_ENFORCE(total == size_, ConfigError, "pooling output has ", total, " values, but the layer size is ",
                   size_);
  }
  std::vector<PoolGeom> geoms_;
  IVector idx_;  // max pooling: per output, its maximum's offset in the input row
  size_t frameH_ = 0, frameW_ = 0;
};

class PoolLayer : public PoolingLayerBase {
 public:
  using PoolingLayerBase::PoolingLayerBase;

  void init(LayerContext& ctx) override {
    Layer::init(ctx);
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "pool_conf");
    PoolGeom g;
    g.isMax = parsePoolType(c.getString("pool_type"));
    g.C = static_cast<int>(c.getInt("channels"));
    g.sizeX = static_cast<int>(c.getInt("size_x"));
    // v1's .proto: an unset y-side field takes its x-side value
    g.sizeY = c.has("size_y") ? static_cast<int>(c.getInt("size_y")) : g.sizeX;
    g.strideX = static_cast<int>(c.getInt("stride"));
    g.strideY = c.has("stride_y") ? static_cast<int>(c.getInt("stride_y")) : g.strideX;
    g.padX = static_cast<int>(c.getInt("padding"));
    g.padY = c.has("padding_y") ? static_cast<int>(c.getInt("padding_y")) : g.padX;
    g.W = static_cast<int>(c.getInt("img_size"));
    g.H = c.has("img_size_y") ? static_cast<int>(c.getInt("img_size_y")) : g.W;
    g.outW = static_cast<int>(c.getInt("output_x"));
    g.outH = c.has("output_y") ? static_cast<int>(c.getInt("output_y")) : g.outW;
    PADDLE_ENFORCE(g.C > 0 && g.sizeX > 0 && g.sizeY > 0 && g.strideX > 0 && g.strideY > 0 && g.W > 0 &&
                       g.H > 0 && g.outW > 0 && g.outH > 0,
                   ConfigError, "pool_conf needs positive channels, size_x, stride, img_size and output_x");
    PADDLE_ENFORCE(g.padX < g.sizeX && g.padY < g.sizeY, ConfigError, "pool_conf.padding ", g.padX,
                   " must be smaller than size_x ", g.sizeX);
    PADDLE_ENFORCE(!c.has("start") || c.getInt("start") == 0, ConfigError, "pool_conf.start is not supported");
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
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "spp_conf");
    image::ImageShape s = image::readImage(c["image_conf"]);
    PADDLE_ENFORCE(s.channels > 0 && s.width > 0 && s.height > 0, ConfigError,
                   "spp_conf.image_conf needs channels and img_size");
    bool isMax = parsePoolType(c.getString("pool_type"));
    int levels = static_cast<int>(c.getInt("pyramid_height"));
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
    checkInputCount(1, 1);
    const Json& c = inputConf(0, "maxout_conf");
    shape_ = image::readImage(c["image_conf"]);
    groups_ = static_cast<int>(c.getInt("groups"));
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
    idx_.setDevice(useGpu_);
    idx_.resize(rows, size_);
    const int pix = shape_.height * shape_.width, outC = shape_.channels / groups_, groups = groups_;
    const size_t inWidth = in.value.width(), outWidth = size_;
    const float* x = in.value.data();
    float* y = output_.value.data();
    int* id = idx_.data();
    forEach2Parallel(useGpu_, rows * outC, pix, [=] PD_HD(size_t r, size_t p) {
      const size_t n = r / outC;
      const int c = static_cast<int>(r % outC);
      const float* xn = x + n * inWidth;
      int best = (c * groups) * pix + static_cast<int>(p);
      for (int k = 1; k < groups; ++k) {
        const int at = (c * groups + k) * pix + static_cast<int>(p);
        if (xn[at] > xn[best]) best = at;
      }
      y[n * outWidth + c * pix + p] = xn[best];
      id[n * outWidth + c * pix + p] = best;
    });
    output_.frameHeight = shape_.height;
    output_.frameWidth = shape_.width;
    forwardActivation();
  }

  void backward() override {
    backwardActivation();
    Argument& in = input(0);
    if (in.grad.empty()) return;
    // the outputs' maxima are distinct inputs: a plain scatter
    const size_t inWidth = in.grad.width(), outWidth = size_;
    const float* g = output_.grad.data();
    const int* id = idx_.data();
    float* gx = in.grad.data();
    forEach2Parallel(useGpu_, output_.grad.height(), outWidth, [=] PD_HD(size_t n, size_t j) {
      gx[n * inWidth + id[n * outWidth + j]] += g[n * outWidth + j];
    });
  }

  void releaseForwardState() override {
    Layer::releaseForwardState();
    idx_ = IVector();  // the max positions, remade by the recomputed forward
    idx_.setDevice(useGpu_);
  }

 private:
  image::ImageShape shape_;
  int groups_ = 1;
  IVector idx_;  // per output, its maximum's offset in the input row
};
}  // namespace

REGISTER_LAYER("pool", PoolLayer);
REGISTER_LAYER("spp", SppLayer);
REGISTER_LAYER("maxout", MaxOutLayer);

}  // namespace paddle
