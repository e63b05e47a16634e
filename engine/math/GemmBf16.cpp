#include "engine/math/GemmBf16.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/Errors.h"
#include "engine/math/Bf16.h"

#if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 11))
#define PADDLE_BF16_KERNELS 1
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own _mm512_undefined_* values
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))
#endif

namespace paddle {
namespace math {

namespace {
// Packed blocks: kKC values of k (B's micro-panel, kKC/2 x kNR pairs = 24 KB, stays in L1
// while the kMC rows of A stream from L2); kNC columns of B per packed block.
constexpr size_t kKC = 384;
}  // namespace

float roundToBf16(float x) { return fromBf16Bits(toBf16Bits(x)); }

size_t bf16DepthBlock() { return kKC; }

#ifdef PADDLE_BF16_KERNELS
namespace {
// A register tile is kRows (8, 10 or 12: tileRows) rows x kNR columns of C: 2 * kRows
// accumulators, 2 vectors of B and one broadcast of A per pair of k.
constexpr size_t kNV = 2;
constexpr size_t kNR = 16 * kNV;
constexpr size_t kMC = 96;
constexpr size_t kNC = 1024;

// Grows a packing buffer, never shrinks it: a resize that grows value-initialises (zeroes) the
// new part, and the block sizes alternate (kc 384 then the rest), so a plain resize cleared
// part of the buffer on every other block. The packers write every value a tile reads.
inline uint32_t* scratch(std::vector<uint32_t>& buf, size_t n) {
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

BF16_TARGET inline __mmask16 firstLanes(size_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// A line's k values converted to pairs (k = 2p, 2p + 1; a missing odd k is 0): pair p of the
// kc values at src goes to out[p], for p < kc2.
BF16_TARGET inline void pairsOfLine(const float* src, size_t kc, uint32_t* out) {
  const size_t kc2 = (kc + 1) / 2;
  for (size_t p = 0; p < kc2; p += 16) {
    const size_t k = 2 * p, left = kc - k;
    const __m512 lo = _mm512_maskz_loadu_ps(firstLanes(left), src + k);
    const __m512 hi = _mm512_maskz_loadu_ps(firstLanes(left > 16 ? left - 16 : 0), src + k + 16);
    _mm512_mask_storeu_epi32(out + p, firstLanes(kc2 - p), (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
  }
}

// Rows of A with contiguous k values (row l at src + l * ld), packed row by row: pair p of
// row l at dst[l * kc2 + p], rows n..mr-1 zero. The tile broadcasts from mr such rows.
BF16_TARGET void packRowsAlongK(const float* src, size_t ld, size_t n, size_t kc, uint32_t* dst, size_t mr) {
  const size_t kc2 = (kc + 1) / 2;
  for (size_t l = 0; l < n; ++l) {
    // the row a panel further on: a big A (an lstm's [T, 4H] gate gradient) comes from memory,
    // one 1.5 KB run of each row 2 KB apart, which the prefetchers followed too late (-12% for
    // its input-gradient product)
    const char* ahead = reinterpret_cast<const char*>(src + (l + mr) * ld);
    for (size_t k = 0; k < kc; k += 16) _mm_prefetch(ahead + 4 * k, _MM_HINT_T0);
    pairsOfLine(src + l * ld, kc, dst + l * kc2);
  }
  std::memset(dst + n * kc2, 0, (mr - n) * kc2 * sizeof(uint32_t));
}

// r[i] holds 16 values of row i; afterwards r[j] holds column j (a 16 x 16 transpose of
// 32-bit values: pairs within 128-bit lanes, then 64-bit halves, then whole lanes).
BF16_TARGET inline void transpose16(__m512i r[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  // u[4g + c]: columns c, c+4, c+8, c+12 (one per 128-bit lane) of rows 4g..4g+3
  for (int g = 0; g < 4; ++g) {
    const __m512i* q = t + 4 * g;
    u[4 * g + 0] = _mm512_unpacklo_epi64(q[0], q[2]);
    u[4 * g + 1] = _mm512_unpackhi_epi64(q[0], q[2]);
    u[4 * g + 2] = _mm512_unpacklo_epi64(q[1], q[3]);
    u[4 * g + 3] = _mm512_unpackhi_epi64(q[1], q[3]);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512i lo01 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44), lo23 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x44);
    const __m512i hi01 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xee), hi23 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xee);
    r[c] = _mm512_shuffle_i32x4(lo01, lo23, 0x88);
    r[c + 4] = _mm512_shuffle_i32x4(lo01, lo23, 0xdd);
    r[c + 8] = _mm512_shuffle_i32x4(hi01, hi23, 0x88);
    r[c + 12] = _mm512_shuffle_i32x4(hi01, hi23, 0xdd);
  }
}

// Columns of B^T (column l's k values contiguous at src + l * ld), packed for the tile's
// vector loads: pair p of column l at dst[p * kNR + l], columns n..kNR-1 zero. Blocks of 16
// columns x 16 pairs are converted row by row and transposed in registers.
BF16_TARGET void packColumnsAlongK(const float* src, size_t ld, size_t n, size_t kc, uint32_t* dst) {
  const size_t kc2 = (kc + 1) / 2;
  __m512i r[16];
  for (size_t l0 = 0; l0 < kNR; l0 += 16) {
    for (size_t p0 = 0; p0 < kc2; p0 += 16) {
      const size_t k = 2 * p0, left = kc - k;
      const __mmask16 lo = firstLanes(left), hi = firstLanes(left > 16 ? left - 16 : 0);
      for (size_t i = 0; i < 16; ++i) {
        const float* s = src + (l0 + i) * ld + k;
        r[i] = l0 + i < n ? (__m512i)_mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(hi, s + 16), _mm512_maskz_loadu_ps(lo, s))
                          : _mm512_setzero_si512();
      }
      transpose16(r);
      for (size_t j = 0; j < 16 && p0 + j < kc2; ++j) _mm512_storeu_si512(dst + (p0 + j) * kNR + l0, r[j]);
    }
  }
}

// Lines whose k values are a row apart (columns of B, or rows of A^T): line j's value at k is
// src[k * ld + j]. Writes pair p of line j at dst[p * stride + j], for j < stride (lines n.. zero).
BF16_TARGET void packAcrossK(const float* src, size_t ld, size_t n, size_t kc, uint32_t* dst, size_t stride) {
  const size_t kc2 = (kc + 1) / 2;
  // interleaves [row k (16 bf16), row k+1 (16 bf16)] into 16 pairs
  const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7,
                                              22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  if (stride == 8) {
    // an 8-row A-panel of a transposed A (a weight gradient's X^T over all tokens): two pairs
    // per vector, rows 2p, 2p+2 in the low / high lanes of x0 and 2p+1, 2p+3 in x1, so the
    // pair interleave writes pairs p and p+1 as 16 consecutive values. Each value is rounded
    // alone, so the bits are those of the general loop.
    const __mmask16 lo = firstLanes(std::min<size_t>(n, 8)), hi = __mmask16(lo << 8);
    for (size_t p = 0; p < kc2; p += 2) {
      const float* r0 = src + 2 * p * ld;
      const size_t k = 2 * p;  // rows k..k+3 exist while below kc
      __m512 x0 = _mm512_maskz_loadu_ps(lo, r0), x1 = _mm512_setzero_ps();
      if (k + 1 < kc) x1 = _mm512_maskz_loadu_ps(lo, r0 + ld);
      // (a masked-out lane never faults: r0 + 2 * ld - 8 only serves lanes 8..15)
      if (k + 2 < kc) x0 = _mm512_mask_loadu_ps(x0, hi, r0 + 2 * ld - 8);
      if (k + 3 < kc) x1 = _mm512_mask_loadu_ps(x1, hi, r0 + 3 * ld - 8);
      const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(x1, x0);
      const __mmask16 store = firstLanes(p + 1 < kc2 ? 16 : 8);
      _mm512_mask_storeu_epi32(dst + p * 8, store, _mm512_permutexvar_epi16(interleave, both));
    }
    return;
  }
  for (size_t p = 0; p < kc2; ++p) {
    const float* r0 = src + 2 * p * ld;
    const bool odd = 2 * p + 1 < kc;
    for (size_t j = 0; j < stride; j += 16) {
      const __mmask16 load = firstLanes(j < n ? n - j : 0), store = firstLanes(stride - j);
      const __m512 x0 = _mm512_maskz_loadu_ps(load, r0 + j);
      const __m512 x1 = odd ? _mm512_maskz_loadu_ps(load, r0 + ld + j) : _mm512_setzero_ps();
      const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(x1, x0);
      _mm512_mask_storeu_epi32(dst + p * stride + j, store, _mm512_permutexvar_epi16(interleave, both));
    }
  }
}

// C[rows, cols] (row stride ldc) = alpha * A-panel * B-panel + (first ? beta * C : C). The
// A-panel holds pair p of row i at a[i * kc2 + p] (kRowsOfA: packRowsAlongK) or at
// a[p * kRows + i] (packAcrossK).
template <bool kRowsOfA, size_t kRows>
BF16_TARGET void tile(size_t kc2, const uint32_t* a, const uint32_t* b, float* c, size_t ldc, size_t rows,
                      size_t cols, float alpha, float beta, bool first) {
  __m512 acc[kRows][kNV];
#pragma GCC unroll 12
  for (size_t i = 0; i < kRows; ++i)
#pragma GCC unroll 2
    for (size_t v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  if (!first || beta != 0.0f) {
    // the C rows this tile adds to, fetched while it multiplies: C is often far out of cache (an
    // lstm's gate rows of one step, a mixed layer's output of all tokens), and rows a row
    // stride apart left the tile waiting on each load (4x the time of the same product with beta 0)
#pragma GCC unroll 12
    for (size_t i = 0; i < kRows; ++i) {
      if (i < rows) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
        if (cols > 16) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16), _MM_HINT_T0);
      }
    }
  }
  for (size_t p = 0; p < kc2; ++p) {
    __m512bh bv[kNV];
#pragma GCC unroll 2
    for (size_t v = 0; v < kNV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * kNR + 16 * v);
#pragma GCC unroll 12
    for (size_t i = 0; i < kRows; ++i) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(kRowsOfA ? a[i * kc2 + p] : a[p * kRows + i]));
#pragma GCC unroll 2
      for (size_t v = 0; v < kNV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], av, bv[v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 12
  for (size_t i = 0; i < kRows; ++i) {
    if (i >= rows) break;
#pragma GCC unroll 2
    for (size_t v = 0; v < kNV; ++v) {
      const size_t j = 16 * v;
      if (j >= cols) break;
      const __mmask16 m = firstLanes(cols - j);
      float* ci = c + i * ldc + j;
      __m512 r = _mm512_mul_ps(va, acc[i][v]);
      if (!first) {
        r = _mm512_add_ps(_mm512_maskz_loadu_ps(m, ci), r);
      } else if (beta != 0.0f) {  // beta 0: C is not read (it may hold NaN garbage)
        r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m, ci), r);
      }
      _mm512_mask_storeu_ps(ci, m, r);
    }
  }
}
using TileFn = void (*)(size_t, const uint32_t*, const uint32_t*, float*, size_t, size_t, size_t, float, float, bool);

// The tile height for a product of M rows: 8 unless 10 or 12 pads fewer rows (10 for 50 or
// 500). (On a tie 8: cnn_text's step, whose long products tie, ran 5% slower in 12-row
// tiles.) The height changes no sum: each C element adds the same products in the same order
// in any tile.
size_t tileRows(size_t M) {
  size_t best = 8;
  for (size_t mr : {10, 12}) {
    if ((M + mr - 1) / mr * mr < (M + best - 1) / best * best) best = mr;
  }
  return best;
}

TileFn tileFor(bool rowsOfA, size_t mr) {
  switch (mr) {
    case 10: return rowsOfA ? tile<true, 10> : tile<false, 10>;
    case 12: return rowsOfA ? tile<true, 12> : tile<false, 12>;
    default: return rowsOfA ? tile<true, 8> : tile<false, 8>;
  }
}
}  // namespace

bool bf16GemmSupported() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512bf16");
  return ok;
}

namespace {
// gemmBf16's loops; packedA (transA only) replaces the packing of A.
void gemmBf16Loops(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
                   const PackedBf16TransA* packedA, const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  thread_local std::vector<uint32_t> apack, bpack;
  const size_t mr = tileRows(M), mcBlock = kMC / mr * mr;
  const TileFn run = tileFor(!transA, mr);
  for (size_t jc = 0; jc < N; jc += kNC) {
    const size_t nc = std::min(kNC, N - jc), nPanels = (nc + kNR - 1) / kNR;
    for (size_t pc = 0; pc < K; pc += kKC) {
      const size_t kc = std::min(kKC, K - pc), kc2 = (kc + 1) / 2;
      scratch(bpack, nPanels * kc2 * kNR);
      for (size_t q = 0; q < nPanels; ++q) {
        const size_t j = jc + q * kNR, n = std::min(kNR, N - j);
        if (transB) {
          packColumnsAlongK(B + j * ldb + pc, ldb, n, kc, bpack.data() + q * kc2 * kNR);
        } else {
          packAcrossK(B + pc * ldb + j, ldb, n, kc, bpack.data() + q * kc2 * kNR, kNR);
        }
      }
      for (size_t ic = 0; ic < M; ic += mcBlock) {
        const size_t mc = std::min(mcBlock, M - ic), mPanels = (mc + mr - 1) / mr;
        const uint32_t* ap = packedA ? packedA->panel(pc / kKC, ic / mr) : nullptr;
        if (!packedA) {
          scratch(apack, mPanels * kc2 * mr);
          for (size_t r = 0; r < mPanels; ++r) {
            const size_t i = ic + r * mr, m = std::min(mr, M - i);
            if (transA) {
              packAcrossK(A + pc * lda + i, lda, m, kc, apack.data() + r * kc2 * mr, mr);
            } else {
              packRowsAlongK(A + i * lda + pc, lda, m, kc, apack.data() + r * kc2 * mr, mr);
            }
          }
          ap = apack.data();
        }
        for (size_t q = 0; q < nPanels; ++q) {
          const size_t j = jc + q * kNR;
          for (size_t r = 0; r < mPanels; ++r) {
            const size_t i = ic + r * mr;
            run(kc2, ap + r * kc2 * mr, bpack.data() + q * kc2 * kNR, C + i * ldc + j, ldc,
                std::min(mr, M - i), std::min(kNR, N - j), alpha, beta, pc == 0);
          }
        }
      }
    }
  }
}

}  // namespace

void gemmBf16(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
              const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  PADDLE_ENFORCE(bf16GemmSupported(), DataError, "gemmBf16: this CPU has no AVX512_BF16");
  gemmBf16Loops(transA, transB, M, N, K, alpha, A, lda, nullptr, B, ldb, beta, C, ldc);
}

// Block b (k from b * kKC) holds the panels of all M rows one after another, kc2 x mr pairs
// each (the layout gemmBf16 packs for one block of kMC rows), blocks before it whole.
void PackedBf16TransA::reshape(size_t M, size_t K) {
  PADDLE_ENFORCE(bf16GemmSupported(), DataError, "PackedBf16TransA: this CPU has no AVX512_BF16");
  M_ = M;
  K_ = K;
  mr_ = tileRows(M);
  scratch(data_, panelCount() * mr_ * ((K + 1) / 2 + 1));  // (reused for products of other sizes)
}

size_t PackedBf16TransA::panelCount() const { return (M_ + mr_ - 1) / mr_; }

const uint32_t* PackedBf16TransA::panel(size_t block, size_t r) const {
  const size_t pc = block * kKC, kc2 = (std::min(kKC, K_ - pc) + 1) / 2;
  return data_.data() + (pc / 2) * panelCount() * mr_ + r * kc2 * mr_;
}

void PackedBf16TransA::packPanels(const float* A, size_t lda, size_t r0, size_t r1) {
  for (size_t pc = 0, b = 0; pc < K_; pc += kKC, ++b) {
    const size_t kc = std::min(kKC, K_ - pc);
    for (size_t r = r0; r < r1; ++r) {
      const size_t i = r * mr_;
      packAcrossK(A + pc * lda + i, lda, std::min(mr_, M_ - i), kc, const_cast<uint32_t*>(panel(b, r)), mr_);
    }
  }
}

void gemmBf16TransA(const PackedBf16TransA& A, bool transB, size_t N, float alpha, const float* B, size_t ldb,
                    float beta, float* C, size_t ldc) {
  gemmBf16Loops(true, transB, A.rows(), N, A.depth(), alpha, nullptr, 0, &A, B, ldb, beta, C, ldc);
}

size_t PackedBf16B::panelColumns() { return kNR; }

// Block b (k from b * kKC) holds its panels one after another, kc2 x kNR pairs each; the
// blocks before it are whole, so it starts b * kKC / 2 pair-rows of all panels in.
const uint32_t* PackedBf16B::panel(size_t block, size_t q) const {
  const size_t nPanels = (N_ + kNR - 1) / kNR, pc = block * kKC, kc2 = (std::min(kKC, K_ - pc) + 1) / 2;
  return data_.data() + (pc / 2) * nPanels * kNR + q * kc2 * kNR;
}

void PackedBf16B::pack(bool transB, size_t K, size_t N, const float* B, size_t ldb) {
  PADDLE_ENFORCE(bf16GemmSupported(), DataError, "PackedBf16B: this CPU has no AVX512_BF16");
  K_ = K;
  N_ = N;
  const size_t nPanels = (N + kNR - 1) / kNR;
  data_.resize(nPanels * kNR * ((K + 1) / 2 + 1));
  for (size_t pc = 0, b = 0; pc < K; pc += kKC, ++b) {
    const size_t kc = std::min(kKC, K - pc);
    for (size_t q = 0; q < nPanels; ++q) {
      const size_t j = q * kNR, n = std::min(kNR, N - j);
      uint32_t* dst = const_cast<uint32_t*>(panel(b, q));
      if (transB) {
        packColumnsAlongK(B + j * ldb + pc, ldb, n, kc, dst);
      } else {
        packAcrossK(B + pc * ldb + j, ldb, n, kc, dst, kNR);
      }
    }
  }
}

// The loops of gemmBf16 with B's packing done: each C element sums the same products in the
// same order, so the bits agree.
void gemmBf16Packed(size_t M, float alpha, const float* A, size_t lda, const PackedBf16B& B, size_t j0, size_t j1,
                    float beta, float* C, size_t ldc) {
  PADDLE_ENFORCE(j0 % kNR == 0 && j1 <= B.cols(), DataError, "gemmBf16Packed: columns [", j0, ", ", j1,
                 ") of a packed B with ", B.cols());
  thread_local std::vector<uint32_t> apack;
  const size_t K = B.rows(), mr = tileRows(M), mcBlock = kMC / mr * mr;
  const TileFn run = tileFor(true, mr);
  for (size_t pc = 0, b = 0; pc < K; pc += kKC, ++b) {
    const size_t kc = std::min(kKC, K - pc), kc2 = (kc + 1) / 2;
    for (size_t ic = 0; ic < M; ic += mcBlock) {
      const size_t mc = std::min(mcBlock, M - ic), mPanels = (mc + mr - 1) / mr;
      scratch(apack, mPanels * kc2 * mr);
      for (size_t r = 0; r < mPanels; ++r) {
        const size_t i = ic + r * mr;
        packRowsAlongK(A + i * lda + pc, lda, std::min(mr, M - i), kc, apack.data() + r * kc2 * mr, mr);
      }
      for (size_t j = j0; j < j1; j += kNR) {
        const uint32_t* bp = B.panel(b, j / kNR);
        for (size_t r = 0; r < mPanels; ++r) {
          const size_t i = ic + r * mr;
          run(kc2, apack.data() + r * kc2 * mr, bp, C + i * ldc + j, ldc, std::min(mr, M - i),
              std::min(kNR, j1 - j), alpha, beta, pc == 0);
        }
      }
    }
  }
}

#else  // no AVX512_BF16 kernels in this build (another architecture or an old compiler)

bool bf16GemmSupported() { return false; }

void gemmBf16(bool, bool, size_t, size_t, size_t, float, const float*, size_t, const float*, size_t, float, float*,
              size_t) {
  PADDLE_ENFORCE(false, DataError, "gemmBf16: this build has no AVX512_BF16 kernels");
}

void PackedBf16TransA::reshape(size_t, size_t) {
  PADDLE_ENFORCE(false, DataError, "PackedBf16TransA: this build has no AVX512_BF16 kernels");
}
size_t PackedBf16TransA::panelCount() const { return 0; }
void PackedBf16TransA::packPanels(const float*, size_t, size_t, size_t) {}
const uint32_t* PackedBf16TransA::panel(size_t, size_t) const { return data_.data(); }
void gemmBf16TransA(const PackedBf16TransA&, bool, size_t, float, const float*, size_t, float, float*, size_t) {
  PADDLE_ENFORCE(false, DataError, "gemmBf16TransA: this build has no AVX512_BF16 kernels");
}
size_t PackedBf16B::panelColumns() { return 32; }
const uint32_t* PackedBf16B::panel(size_t, size_t) const { return data_.data(); }
void PackedBf16B::pack(bool, size_t, size_t, const float*, size_t) {
  PADDLE_ENFORCE(false, DataError, "PackedBf16B: this build has no AVX512_BF16 kernels");
}
void gemmBf16Packed(size_t, float, const float*, size_t, const PackedBf16B&, size_t, size_t, float, float*, size_t) {
  PADDLE_ENFORCE(false, DataError, "gemmBf16Packed: this build has no AVX512_BF16 kernels");
}
#endif

}  // namespace math
}  // namespace paddle
