#include "engine/math/GemmPacked.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "engine/Errors.h"
#include "engine/math/Device.h"
#include "engine/math/ThreadPool.h"

// nvcc's front end compiles the engine's .cpp files too: it gets the portable half only.
#if defined(__x86_64__) && !defined(__CUDACC__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9))
#define PADDLE_PACKED_KERNELS 1
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own _mm512_undefined_* values
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define PACKED_TARGET __attribute__((target("avx512f")))
#endif

namespace paddle {
namespace math {

namespace {
constexpr size_t kNR = PackedMatrix::kPanel;
// k values per block: a panel's block of a B read where it lies (256 x 32 floats, 32 KB) stays in
// L1 while the row tiles of A pass over it.
constexpr size_t kKC = 256;
// The same for a packed B, whose panel (contiguous, <= 128 KB at K <= 1024) the kernel streams from
// L2 at full speed: one block stores C once, where blocks of 256 reloaded and stored it K / 256
// times and ran a short tail block (K = 784: 3 x 256 + 16), ~3% slower on the digits MLP.
constexpr size_t kKCPacked = 1024;
constexpr size_t kMR = 8;  // rows of C per register tile

thread_local PackedWeights* tPackedWeights = nullptr;

bool enabledByEnvironment() {
  return !switchedOffInEnvironment("PADDLE_PACKED_GEMM");
}
std::atomic<bool> gEnabled{true};

bool cpuHasKernels() {
#ifdef PADDLE_PACKED_KERNELS
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
#else
  return false;
#endif
}
}  // namespace

bool packedGemmSupported() {
  return gEnabled.load(std::memory_order_relaxed) && cpuHasKernels() && enabledByEnvironment();
}
void setPackedGemmEnabled(bool on) { gEnabled.store(on, std::memory_order_relaxed); }

void PackedMatrix::Free::operator()(float* p) const { std::free(p); }

PackedMatrix::PackedMatrix(const float* B, size_t K, size_t N, size_t ldb) : K_(K), N_(N) {
  const size_t panels = (N + kNR - 1) / kNR, count = std::max<size_t>(panels * K * kNR, 16);
  // 64-byte aligned: each row of a panel is two whole cache lines
  data_.reset(static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64)));
  if (!data_) throw std::bad_alloc();
  float* out = data_.get();
  for (size_t q = 0; q < panels; ++q) {
    const size_t j0 = q * kNR, n = std::min(kNR, N - j0);
    for (size_t k = 0; k < K; ++k, out += kNR) {
      std::memcpy(out, B + k * ldb + j0, n * sizeof(float));
      std::fill(out + n, out + kNR, 0.0f);
      for (size_t j = 0; j < n; ++j) finite_ = finite_ && std::isfinite(out[j]);
    }
  }
}

void PackedWeights::add(const float* data, size_t rows, size_t cols) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.emplace(data, Entry{rows, cols, nullptr});
}

const PackedMatrix* PackedWeights::find(const float* B, size_t K, size_t N, size_t ldb) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(B);
  if (it == entries_.end() || it->second.rows != K || it->second.cols != N || ldb != N) return nullptr;
  if (!it->second.packed) it->second.packed = std::make_unique<PackedMatrix>(B, K, N, ldb);
  return it->second.packed.get();
}

const float* PackedWeights::rowTiles(const float* A, size_t M, size_t K) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(A);
  if (it == entries_.end() || M * K > it->second.rows * it->second.cols || M < kMR) return nullptr;
  Entry& e = it->second;
  if (e.tiles.empty()) {  // once: a thread may be reading them (another shape gets none)
    e.tiles.assign(M / kMR * kMR * K, 0.0f);
    for (size_t t = 0; t < M / kMR; ++t)
      for (size_t k = 0; k < K; ++k)
        for (size_t i = 0; i < kMR; ++i) e.tiles[(t * K + k) * kMR + i] = A[(t * kMR + i) * K + k];
    e.tileRows = M, e.tileCols = K;
  }
  return e.tileRows == M && e.tileCols == K ? e.tiles.data() : nullptr;
}

bool PackedWeights::holds(const float* data, size_t rows, size_t cols, size_t ld) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(data);
  // (a conv weight is stored as one column; its filters read it as [filters, K])
  return it != entries_.end() && rows * cols <= it->second.rows * it->second.cols && ld == cols;
}

PackedWeightsScope::PackedWeightsScope(PackedWeights* weights) : saved_(tPackedWeights) { tPackedWeights = weights; }
PackedWeightsScope::~PackedWeightsScope() { tPackedWeights = saved_; }

#ifdef PADDLE_PACKED_KERNELS
namespace {
PACKED_TARGET inline __mmask16 firstLanes(size_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// r (the columns from j of a row of C, lanes m) + bias, then relu as act::Relu has it (x < 0: 0,
// so a NaN passes through and -0 stays): the same bits as the separate passes would give.
// Then the rows' batch norm and residual sum (row i of the tile), in finishChannels' order.
PACKED_TARGET inline __m512 reluOf(__m512 r) {
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, _mm512_setzero_ps(), _CMP_LT_OQ), _mm512_setzero_ps());
}
PACKED_TARGET inline __m512 finish(__m512 r, __mmask16 m, size_t i, size_t j, const GemmEpilogue& e) {
  if (e.bias) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(m, e.bias + j));
  if (e.relu) r = reluOf(r);
  if (e.rowMean) {
    r = _mm512_add_ps(_mm512_sub_ps(r, _mm512_set1_ps(e.rowMean[i])), _mm512_set1_ps(e.rowShift ? e.rowShift[i] : 0.0f));
    if (e.rowRelu) r = reluOf(r);
    if (e.residual) {
      r = _mm512_add_ps(_mm512_maskz_loadu_ps(m, e.residual + i * e.ldr + j), r);
      if (e.sumRelu) r = reluOf(r);
    }
  }
  return r;
}

// C[R rows, cols] (row stride ldc) = alpha * A-rows * B-panels + (first ? beta * C : C), over kc
// values of k: row i of A at a + i * lda; NV vectors of 16 columns of neighbouring panels of 32,
// panel p's values at k at b + p * panelStride + k * kStride (a packed B: kStride kNR; a row-major
// B: its row stride, panelStride kNR). One vector (NV 1) for a tile of at most 16 columns (an
// output layer's 10 classes): no FMAs on the panel's zeros. Loads past `cols` are masked off
// unless kWholeLoads (a packed panel is zero past its columns, or the tile's columns are whole
// panels): plain loads run ~4% faster. R x NV accumulators, one FMA chain per C vector, k ascending.
// With kB kOffsets, B's row k starts at b + rowOff[k] (kStride unused): an image read where it lies.
// With kImage, vector v's 16 columns at k start at b + rowOff[k] + vecOff[v] (a conv's output rows of
// 16 and more outputs, each vector within one row); kImageHalves, its two halves of 8 at
// b + rowOff[k] + vecOff[v] and kStride further (output rows of 8, two a vector).
// The epilogue (the last k block only: null otherwise) adds bias[column] and applies relu on the way out.
// kImageTaps: kImage with vector v's lanes at k loaded under masks[maskRow[k] + v] (0: a pixel
// outside the image, where a padded copy would hold 0): the image read as it lies, unpadded.
enum BLayout { kStrided, kOffsets, kImage, kImageHalves, kImageTaps };

// kATiles: A in row tiles (packRowTiles), row i's value at k at a[k * kMR + i]: one pointer for the
// broadcasts instead of R (which the compiler kept in vector registers and moved back each k).
template <int R, int NV, int kB, bool kWholeLoads, bool kATiles = false>
PACKED_TARGET void tile(size_t kc, const float* a, size_t lda, const float* b, size_t kStride, size_t panelStride,
                        const ptrdiff_t* rowOff, const ptrdiff_t* vecOff, const uint16_t* masks, const int* maskRow,
                        float* c, size_t ldc, size_t cols, float alpha, float beta, bool first,
                        const GemmEpilogue* epilogue) {
  constexpr int kNV = NV;
  __mmask16 load[kNV];
#pragma GCC unroll 8
  for (int v = 0; v < kNV; ++v)
    load[v] = kWholeLoads ? __mmask16(0xffff) : firstLanes(cols > 16u * v ? cols - 16u * v : 0);
  __m512 acc[R][kNV];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (size_t k = 0; k < kc; ++k) {
    __m512 bv[kNV];
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) {
      if constexpr (kB == kImage) {
        bv[v] = _mm512_loadu_ps(b + rowOff[k] + vecOff[v]);
      } else if constexpr (kB == kImageTaps) {
        bv[v] = _mm512_maskz_loadu_ps(masks[maskRow[k] + v], b + rowOff[k] + vecOff[v]);
      } else if constexpr (kB == kImageHalves) {
        const float* at = b + rowOff[k] + vecOff[v];
        const __m512d lo = _mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(at)));
        bv[v] = _mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_castps_pd(_mm256_loadu_ps(at + kStride)), 1));
      } else {
        const float* at = b + (v / 2) * panelStride +
                          (kB == kOffsets ? rowOff[k] : static_cast<ptrdiff_t>(k * kStride)) + 16 * (v % 2);
        bv[v] = kWholeLoads ? _mm512_loadu_ps(at) : _mm512_maskz_loadu_ps(load[v], at);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m512 av = _mm512_set1_ps(kATiles ? a[k * kMR + i] : a[i * lda + k]);
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) {
      const size_t j = 16 * static_cast<size_t>(v);
      if (j >= cols) break;
      const __mmask16 m = firstLanes(cols - j);
      float* ci = c + i * ldc + j;
      __m512 r = alpha == 1.0f ? acc[i][v] : _mm512_mul_ps(va, acc[i][v]);
      if (!first) {
        r = _mm512_add_ps(_mm512_maskz_loadu_ps(m, ci), r);
      } else if (beta != 0.0f) {  // beta 0: C is not read (it may hold NaN garbage)
        r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m, ci), r);
      }
      if (epilogue) r = finish(r, m, static_cast<size_t>(i), j, *epilogue);
      _mm512_mask_storeu_ps(ci, m, r);
    }
  }
}

using TileFn = void (*)(size_t, const float*, size_t, const float*, size_t, size_t, const ptrdiff_t*,
                        const ptrdiff_t*, const uint16_t*, const int*, float*, size_t, size_t, float, float, bool,
                        const GemmEpilogue*);

template <int NV, int kB, bool kWholeLoads>
TileFn tileFor(size_t rows) {
  static const TileFn fns[kMR] = {tile<1, NV, kB, kWholeLoads>, tile<2, NV, kB, kWholeLoads>,
                                  tile<3, NV, kB, kWholeLoads>, tile<4, NV, kB, kWholeLoads>,
                                  tile<5, NV, kB, kWholeLoads>, tile<6, NV, kB, kWholeLoads>,
                                  tile<7, NV, kB, kWholeLoads>, tile<8, NV, kB, kWholeLoads>};
  return fns[rows - 1];
}

template <int kB, bool kWholeLoads>
TileFn tileFor(size_t rows, size_t vectors) {
  if (vectors == 8) return tileFor<8, kB, kWholeLoads>(rows);
  if (vectors == 4) return tileFor<4, kB, kWholeLoads>(rows);
  if (vectors == 2) return tileFor<2, kB, kWholeLoads>(rows);
  return tileFor<1, kB, kWholeLoads>(rows);
}

TileFn tileFor(size_t rows, size_t vectors, BLayout layout, bool wholeLoads, bool aTiles) {
  if (aTiles && rows == kMR && vectors == 2 && wholeLoads) {
    if (layout == kImage) return tile<kMR, 2, kImage, true, true>;
    if (layout == kImageHalves) return tile<kMR, 2, kImageHalves, true, true>;
    if (layout == kStrided) return tile<kMR, 2, kStrided, true, true>;
    if (layout == kImageTaps) return tile<kMR, 2, kImageTaps, true, true>;
  }
  switch (layout) {
    case kImageTaps: return tileFor<kImageTaps, true>(rows, vectors);
    case kImage: return tileFor<kImage, true>(rows, vectors);  // (whole vectors only)
    case kImageHalves: return tileFor<kImageHalves, true>(rows, vectors);
    case kOffsets: return wholeLoads ? tileFor<kOffsets, true>(rows, vectors) : tileFor<kOffsets, false>(rows, vectors);
    default: return wholeLoads ? tileFor<kStrided, true>(rows, vectors) : tileFor<kStrided, false>(rows, vectors);
  }
}

// The loops over k blocks, column panels and row tiles of rows [i0, i1) of C; B's k-th values of
// panel q at b0 + q * panelStride + k * kStride (or + rowOff[k]). `wide`: panels per tile (1, 2 or 4).
// `padded`: B is a PackedMatrix (zeros past its columns, so loads never need masks). `outW` > 0: B is
// an image read where it lies, column j at b0 + rowOff[k] + (j / outW) * kStride + j % outW (tiles of
// whole vectors only: the columns a multiple of 16).
void tileLoops(size_t i0, size_t i1, size_t wide, size_t K, size_t j0, size_t j1, float alpha, const float* A,
               size_t lda, const float* b0, size_t kStride, size_t panelStride, const ptrdiff_t* rowOff, float beta,
               float* C, size_t ldc, bool padded, const GemmEpilogue* epilogue, size_t outW, const float* aTiles,
               const ImageTaps* taps) {
  const size_t blockK = padded ? kKCPacked : kKC;
  const BLayout layout = taps ? kImageTaps : outW ? (outW == 8 ? kImageHalves : kImage) : rowOff ? kOffsets : kStrided;
  ptrdiff_t vecOff[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t pc = 0; pc < K; pc += blockK) {
    const size_t kc = std::min(blockK, K - pc);
    for (size_t j = j0; j < j1;) {
      // (an image: whole panels, or one vector of 16 at the end)
      const size_t left = outW ? std::max<size_t>((j1 - j) / kNR, 1) : (j1 - j + kNR - 1) / kNR;
      const size_t np = wide >= 4 && left >= 4 ? 4 : wide >= 2 && left >= 2 ? 2 : 1;
      const size_t cols = std::min(np * kNR, j1 - j), vectors = cols <= 16 ? 1 : 2 * np;
      const float* b = outW ? b0 : b0 + j / kNR * panelStride + pc * kStride;
      for (size_t v = 0; outW && v < vectors; ++v) {
        const size_t col = j + 16 * v;
        vecOff[v] = static_cast<ptrdiff_t>(col / outW * kStride + col % outW);
      }
      const bool last = pc + kc == K;
      GemmEpilogue shifted = last && epilogue ? *epilogue : GemmEpilogue{};  // from the tile's (0, 0)
      if (shifted.bias) shifted.bias += j;
      const GemmEpilogue* out = last && epilogue && epilogue->any() ? &shifted : nullptr;
      for (size_t i = i0; i < i1; i += kMR) {
        const size_t rows = std::min(kMR, i1 - i);
        if (out && epilogue->rowMean) {
          shifted.rowMean = epilogue->rowMean + i;
          shifted.rowShift = epilogue->rowShift ? epilogue->rowShift + i : nullptr;
          shifted.residual = epilogue->residual ? epilogue->residual + i * epilogue->ldr + j : nullptr;
        }
        const bool whole = padded || cols == np * kNR, tiled = aTiles && rows == kMR && vectors == 2 && whole;
        const TileFn fn = tileFor(rows, vectors, layout, whole, tiled);
        fn(kc, tiled ? aTiles + i * K + pc * kMR : A + i * lda + pc, lda, b, kStride, panelStride,
           rowOff ? rowOff + pc : nullptr, vecOff, taps ? taps->masks + j / 16 : nullptr,
           taps ? taps->maskRow + pc : nullptr, C + i * ldc + j, ldc, cols, alpha, beta, pc == 0, out);
      }
      j += np * kNR;
    }
  }
}

// Whole 8-row tiles first, then the rows left over: few rows give few accumulators per panel, so
// their tiles span 2 or 4 panels, at least 8 FMA chains to hide the FMA latency (one row alone is a
// GEMV). Each C element sums alike in either.
void tiles(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* b0,
           size_t kStride, size_t panelStride, float beta, float* C, size_t ldc, const ptrdiff_t* rowOff = nullptr,
           bool padded = false, const GemmEpilogue* epilogue = nullptr, size_t outW = 0, const float* aTiles = nullptr,
           const ImageTaps* taps = nullptr) {
  const size_t whole = M > kMR ? M / kMR * kMR : 0, rest = M - whole;
  if (whole) {
    tileLoops(0, whole, 1, K, j0, j1, alpha, A, lda, b0, kStride, panelStride, rowOff, beta, C, ldc, padded, epilogue,
              outW, aTiles, taps);
  }
  if (rest) {
    tileLoops(whole, M, rest <= 2 ? 4 : rest <= 4 ? 2 : 1, K, j0, j1, alpha, A, lda, b0, kStride, panelStride, rowOff,
              beta, C, ldc, padded, epilogue, outW, nullptr, taps);
  }
}

void scaleColumns(size_t M, size_t j0, size_t j1, float beta, float* C, size_t ldc) {  // C = beta * C (K = 0)
  for (size_t i = 0; i < M; ++i)
    for (size_t j = j0; j < j1; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
}

// ---- An A that is mostly zeros: the relu'd activations an fc layer reads (about half of a hidden
// layer's values are 0). Row by row, C adds only the rows of B where its row of A is nonzero,
// where the tiles above multiply every zero too: 256 columns (8 panels, 16 accumulators) at a time,
// k in blocks of 32 (32 KB of B, which stays in L1 while every row passes). A 64 x 512 by 512 x 512
// product takes 0.92 of the tiles' time at half zeros, 0.79 at 60%, 0.67 at 70%, 0.41 at 90%; the
// same at 45% (a row's loop runs at ~2/3 of the tiles' FMA rate). Each C element sums its nonzero
// products in the tiles' order, k ascending in one FMA chain (one k block of kKCPacked), and a
// zero of A adds a zero there (B finite): the same bits, the sign of a zero sum aside.

// How a product by a packed weight treats the zeros of A (PADDLE_SKIP_ZEROS, read once): skipped
// where they are many (the default), multiplied (0 or off), or skipped in every product that can
// (always: the tests' way to run the row kernel over any shape).
enum class SkipZeros { kOff, kWhereMany, kAlways };
SkipZeros skipZeros() {
  static const SkipZeros mode = [] {
    const char* v = std::getenv("PADDLE_SKIP_ZEROS");
    if (v && std::string(v) == "always") return SkipZeros::kAlways;
    return switchedOffInEnvironment("PADDLE_SKIP_ZEROS") ? SkipZeros::kOff : SkipZeros::kWhereMany;
  }();
  return mode;
}

constexpr size_t kSparsePanels = 8, kSparseDepth = 32;
static_assert(kNR * sizeof(float) == 128, "a panel row is 128 bytes (listNonzeros' shift by 7)");
constexpr float kSparseZeros = 0.45f;  // the share of zeros from which the rows' loops pay

// Whether the product goes row by row: alpha 1, beta 0 (C = A * B), one k block, a finite B at least
// 8 panels wide, and (unless PADDLE_SKIP_ZEROS says) at least kSparseZeros of the first (up to 16)
// rows of A zeros.
bool sparseRowsPay(size_t M, const float* A, size_t lda, const PackedMatrix& B, size_t j0, size_t j1, float alpha,
                   float beta) {
  const size_t K = B.rows();
  if (alpha != 1.0f || beta != 0.0f || K > kKCPacked || !B.finite() || j1 - j0 <= (kSparsePanels - 1) * kNR) {
    return false;
  }
  if (skipZeros() != SkipZeros::kWhereMany) return skipZeros() == SkipZeros::kAlways;
  const size_t rows = std::min<size_t>(M, 16);
  size_t zeros = 0;
  for (size_t i = 0; i < rows; ++i) zeros += static_cast<size_t>(std::count(A + i * lda, A + i * lda + K, 0.0f));
  return zeros >= kSparseZeros * static_cast<float>(rows * K);
}

// The nonzero values of a row of A in [0, kc) (kc <= kSparseDepth), in order, and their rows' byte
// offsets in a block of panels; stores whole vectors past the last (room: kSparseDepth + 16). Their
// count.
PACKED_TARGET size_t listNonzeros(const float* a, size_t kc, int32_t* offsets, float* values) {
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  size_t n = 0;
  for (size_t k = 0; k < kc; k += 16) {
    const __mmask16 m = firstLanes(kc - k);
    const __m512 x = _mm512_maskz_loadu_ps(m, a + k);
    const __mmask16 nz = _mm512_mask_cmp_ps_mask(m, x, _mm512_setzero_ps(), _CMP_NEQ_UQ);  // (NaN: nonzero)
    const __m512i row = _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int>(k)));
    // (compressing in registers and storing whole vectors: a compressing store is slow on AMD)
    _mm512_storeu_si512(offsets + n, _mm512_maskz_compress_epi32(nz, _mm512_slli_epi32(row, 7)));  // x 128 bytes
    _mm512_storeu_ps(values + n, _mm512_maskz_compress_ps(nz, x));
    n += static_cast<size_t>(__builtin_popcount(nz));
  }
  return n;
}

// Rows [0, M) of C (columns [0, cols) of 8 panels from `block`, panelStride apart) plus A's rows
// [0, kc) (row stride lda) times the rows of the block, k ascending, their zeros skipped. `first`: C
// starts at 0 (else from C); `epilogue` (shifted to the block's first column): the last k block's.
PACKED_TARGET void sparseBlock(size_t M, const float* A, size_t lda, size_t kc, const float* block,
                               size_t panelStride, float* C, size_t ldc, size_t cols, bool first,
                               const GemmEpilogue* epilogue) {
  constexpr int kNV = 2 * kSparsePanels;
  constexpr size_t kValues = kSparseDepth + 16;  // a list: offsets, then the values from here on
  const char* panel[kSparsePanels];
  for (size_t q = 0; q < kSparsePanels; ++q) panel[q] = reinterpret_cast<const char*>(block + q * panelStride);
  // The lists of 32 rows at a time, then their products: a list read just after its vector stores
  // waits for them to reach L1 (the loads are narrower), ~10% of the time. Offsets and
  // values share a base address, which keeps the loop's addresses in general registers.
  constexpr size_t kRows = 32;
  alignas(64) int32_t lists[kRows][2 * kValues];
  size_t counts[kRows];
  for (size_t i = 0; i < M; ++i) {
    int32_t* list = lists[i % kRows];
    if (i % kRows == 0) {
      for (size_t r = i; r < std::min(M, i + kRows); ++r) {
        int32_t* to = lists[r - i];
        counts[r - i] = listNonzeros(A + r * lda, kc, to, reinterpret_cast<float*>(to + kValues));
      }
    }
    const size_t n = counts[i % kRows];
    float* c = C + i * ldc;
    __m512 acc[kNV];
#pragma GCC unroll 16
    for (int v = 0; v < kNV; ++v) acc[v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + 16 * v);
    for (size_t t = 0; t < n; ++t) {
      const ptrdiff_t offset = list[t];
      const __m512 av = _mm512_set1_ps(reinterpret_cast<const float*>(list + kValues)[t]);
#pragma GCC unroll 16
      for (int v = 0; v < kNV; ++v) {
        const float* b = reinterpret_cast<const float*>(panel[v / 2] + offset) + 16 * (v % 2);
        acc[v] = _mm512_fmadd_ps(av, _mm512_load_ps(b), acc[v]);
      }
    }
    if (!epilogue && cols == kNV * 16) {
#pragma GCC unroll 16
      for (int v = 0; v < kNV; ++v) _mm512_storeu_ps(c + 16 * v, acc[v]);
      continue;
    }
#pragma GCC unroll 16
    for (int v = 0; v < kNV; ++v) {
      const size_t j = 16 * static_cast<size_t>(v);
      if (j >= cols) break;
      const __mmask16 m = firstLanes(cols - j);
      _mm512_mask_storeu_ps(c + j, m, epilogue ? finish(acc[v], m, i, j, *epilogue) : acc[v]);
    }
  }
}

// C[M, columns j0..j1) = A * B row by row for the blocks of 8 whole panels from j0; the columns
// left (fewer than 8 panels) are the tiles'.
void sparseRows(size_t M, size_t j0, size_t j1, const float* A, size_t lda, const PackedMatrix& B, float* C,
                size_t ldc, const GemmEpilogue& epilogue) {
  const size_t K = B.rows(), width = kSparsePanels * kNR, blocks = (j1 - j0 + kNR - 1) / kNR / kSparsePanels;
  const size_t js = std::min(j1, j0 + blocks * width);
  for (size_t j = j0; j < js; j += width) {
    GemmEpilogue shifted = epilogue;  // from the block's first column
    if (shifted.bias) shifted.bias += j;
    if (shifted.residual) shifted.residual += j;
    for (size_t k0 = 0; k0 < K; k0 += kSparseDepth) {
      const size_t kc = std::min(kSparseDepth, K - k0);
      const GemmEpilogue* out = k0 + kc == K && epilogue.any() ? &shifted : nullptr;
      sparseBlock(M, A + k0, lda, kc, B.panel(j / kNR) + k0 * kNR, K * kNR, C + j, ldc, std::min(width, j1 - j),
                  k0 == 0, out);
    }
  }
  if (js < j1) tiles(M, K, js, j1, 1.0f, A, lda, B.panel(0), kNR, K * kNR, 0.0f, C, ldc, nullptr, true, &epilogue);
}
}  // namespace

void gemmPacked(size_t M, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const PackedMatrix& B,
                float beta, float* C, size_t ldc, const GemmEpilogue& epilogue) {
  PADDLE_ENFORCE(cpuHasKernels(), DataError, "gemmPacked: this CPU has no AVX-512F");
  PADDLE_ENFORCE(j0 % kNR == 0 && j0 <= j1 && j1 <= B.cols(), DataError, "gemmPacked: columns [", j0, ", ", j1,
                 ") of ", B.cols());
  PADDLE_ENFORCE(B.rows() > 0 || !epilogue.any(), DataError, "gemmPacked: an epilogue needs K > 0");
  if (B.rows() == 0) return scaleColumns(M, j0, j1, beta, C, ldc);
  if (sparseRowsPay(M, A, lda, B, j0, j1, alpha, beta)) {
    return sparseRows(M, j0, j1, A, lda, B, C, ldc, epilogue);
  }
  tiles(M, B.rows(), j0, j1, alpha, A, lda, B.panel(0), kNR, B.rows() * kNR, beta, C, ldc, nullptr, true, &epilogue);
}

void gemmRowMajor(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                  size_t ldb, float beta, float* C, size_t ldc, const float* aTiles) {
  PADDLE_ENFORCE(cpuHasKernels(), DataError, "gemmRowMajor: this CPU has no AVX-512F");
  PADDLE_ENFORCE(j0 % kNR == 0 && j0 <= j1 && j1 <= ldb, DataError, "gemmRowMajor: columns [", j0, ", ", j1, ")");
  if (K == 0) return scaleColumns(M, j0, j1, beta, C, ldc);
  tiles(M, K, j0, j1, alpha, A, lda, B, ldb, kNR, beta, C, ldc, nullptr, false, nullptr, 0, aTiles);
}

void gemmRowOffsets(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                    const ptrdiff_t* rowOffset, float beta, float* C, size_t ldc) {
  PADDLE_ENFORCE(cpuHasKernels(), DataError, "gemmRowOffsets: this CPU has no AVX-512F");
  PADDLE_ENFORCE(j0 % kNR == 0 && j0 <= j1, DataError, "gemmRowOffsets: columns [", j0, ", ", j1, ")");
  if (K == 0) return scaleColumns(M, j0, j1, beta, C, ldc);
  tiles(M, K, j0, j1, alpha, A, lda, B, 0, kNR, beta, C, ldc, rowOffset);
}

void gemmImageRows(size_t M, size_t K, size_t j0, size_t j1, float alpha, const float* A, size_t lda, const float* B,
                   const ptrdiff_t* rowOffset, size_t outW, size_t rowStride, float beta, float* C, size_t ldc,
                   const GemmEpilogue* epilogue, const float* aTiles, const ImageTaps* taps) {
  PADDLE_ENFORCE(cpuHasKernels(), DataError, "gemmImageRows: this CPU has no AVX-512F");
  PADDLE_ENFORCE(!taps || outW % 16 == 0, DataError, "gemmImageRows: taps need rows of a multiple of 16, not ", outW);
  PADDLE_ENFORCE(j0 % kNR == 0 && j0 <= j1 && j1 % 16 == 0 && (outW == 8 || (outW > 0 && outW % 16 == 0)), DataError,
                 "gemmImageRows: columns [", j0, ", ", j1, ") of rows of ", outW);
  PADDLE_ENFORCE(K > 0 || !epilogue || !epilogue->any(), DataError, "gemmImageRows: an epilogue needs K > 0");
  if (K == 0) return scaleColumns(M, j0, j1, beta, C, ldc);
  tiles(M, K, j0, j1, alpha, A, lda, B, rowStride, 0, beta, C, ldc, rowOffset, false, epilogue, outW, aTiles, taps);
}

#else  // no AVX-512 kernels in this build: products stay on OpenBLAS

void gemmPacked(size_t, size_t, size_t, float, const float*, size_t, const PackedMatrix&, float, float*, size_t,
                const GemmEpilogue&) {
  PADDLE_ENFORCE(false, DataError, "gemmPacked: this build has no AVX-512 kernels");
}
void gemmRowMajor(size_t, size_t, size_t, size_t, float, const float*, size_t, const float*, size_t, float, float*,
                  size_t, const float*) {
  PADDLE_ENFORCE(false, DataError, "gemmRowMajor: this build has no AVX-512 kernels");
}
void gemmRowOffsets(size_t, size_t, size_t, size_t, float, const float*, size_t, const float*, const ptrdiff_t*, float,
                    float*, size_t) {
  PADDLE_ENFORCE(false, DataError, "gemmRowOffsets: this build has no AVX-512 kernels");
}
void gemmImageRows(size_t, size_t, size_t, size_t, float, const float*, size_t, const float*, const ptrdiff_t*, size_t,
                   size_t, float, float*, size_t, const GemmEpilogue*, const float*, const ImageTaps*) {
  PADDLE_ENFORCE(false, DataError, "gemmImageRows: this build has no AVX-512 kernels");
}
#endif

bool packedWeightOnLeft(const float* A, size_t rows, size_t cols) {
  PackedWeights* weights = tPackedWeights;
  return weights && cpuHasKernels() && gEnabled.load(std::memory_order_relaxed) && weights->holds(A, rows, cols, cols);
}

const float* packedWeightRowTiles(const float* A, size_t rows, size_t cols) {
  PackedWeights* weights = tPackedWeights;
  if (!weights || !cpuHasKernels() || !gEnabled.load(std::memory_order_relaxed)) return nullptr;
  return weights->rowTiles(A, rows, cols);
}

bool gemmWithPackedWeight(size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda, const float* B,
                          size_t ldb, float beta, float* C, size_t ldc, const GemmEpilogue* epilogue) {
  PackedWeights* weights = tPackedWeights;
  if (!weights || !cpuHasKernels() || !gEnabled.load(std::memory_order_relaxed)) return false;
  const PackedMatrix* packed = weights->find(B, K, N, ldb);
  if (epilogue && (!packed || K == 0)) return false;  // (only a packed weight's product takes one)
  // A weight on the left (a conv layer's filters times its unfolded images): the kernels read B
  // where it lies, and the filters' rows as they are.
  if (!packed && !weights->holds(A, M, K, lda)) return false;
  auto run = [&](size_t rows, size_t j0, size_t j1, const float* a, float* c) {
    if (packed) {
      gemmPacked(rows, j0, j1, alpha, a, lda, *packed, beta, c, ldc, epilogue ? *epilogue : GemmEpilogue{});
    } else {
      gemmRowMajor(rows, K, j0, j1, alpha, a, lda, B, ldb, beta, c, ldc);
    }
  };
  // Chunks of whole panels (or of rows, for a narrow C): every chunk sums each element alike.
  constexpr size_t kGrain = size_t(1) << 18;  // multiply-adds per chunk below which splitting does not pay
  const size_t panels = (N + kNR - 1) / kNR;
  if (panels >= 2 && N >= M) {
    parallelFor(panels, kGrain / (M * K * kNR) + 1,
                [&](size_t q0, size_t q1) { run(M, q0 * kNR, std::min(N, q1 * kNR), A, C); });
  } else {
    parallelFor(M, kGrain / (N * K) + 1, [&](size_t i0, size_t i1) { run(i1 - i0, 0, N, A + i0 * lda, C + i0 * ldc); });
  }
  return true;
}

}  // namespace math
}  // namespace paddle
