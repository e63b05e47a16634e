#include "GemmBf16.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "../Errors.h"

#if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 11))
#define PADDLE_BF16_KERNELS 1
#include <immintrin.h>
#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))
#endif

namespace paddle {
namespace math {

float roundToBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    u |= 0x00400000u;  // NaN stays NaN (quiet)
  } else if ((u & 0x7f800000u) == 0) {
    u &= 0x80000000u;  // a denormal becomes a signed zero, as VCVTNE2PS2BF16 does
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);
  }
  u &= 0xffff0000u;
  float r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

#ifdef PADDLE_BF16_KERNELS
namespace {
// A register tile is kMR rows x kNR columns of C: 16 accumulators, 2 vectors of B and one
// broadcast of A per pair of k.
constexpr size_t kMR = 8;
constexpr size_t kNV = 2;
constexpr size_t kNR = 16 * kNV;
// Packed blocks: kKC values of k (B's micro-panel, kKC/2 x kNR pairs = 24 KB, stays in L1
// while the kMC rows of A stream from L2); kNC columns of B per packed block.
constexpr size_t kKC = 384;
constexpr size_t kMC = 96;
constexpr size_t kNC = 1024;

BF16_TARGET inline __mmask16 firstLanes(size_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// Lines whose k values are contiguous (rows of A, or columns of B^T): line l's k values
// start at src + l * ld. Writes pair p of line l (k = 2p, 2p + 1; a missing odd k is 0) at
// dst[p * stride + l], for l < stride (lines n.. are zeros).
BF16_TARGET void packAlongK(const float* src, size_t ld, size_t n, size_t kc, uint32_t* dst, size_t stride) {
  const size_t kc2 = (kc + 1) / 2;
  alignas(64) uint32_t pairs[16];
  for (size_t l = 0; l < stride; ++l) {
    if (l >= n) {
      for (size_t p = 0; p < kc2; ++p) dst[p * stride + l] = 0;
      continue;
    }
    const float* s = src + l * ld;
    for (size_t p = 0; p < kc2; p += 16) {
      const size_t k = 2 * p, left = kc - k;
      const __m512 lo = _mm512_maskz_loadu_ps(firstLanes(left), s + k);
      const __m512 hi = _mm512_maskz_loadu_ps(firstLanes(left > 16 ? left - 16 : 0), s + k + 16);
      _mm512_store_si512(pairs, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
      for (size_t q = 0, e = std::min<size_t>(16, kc2 - p); q < e; ++q) dst[(p + q) * stride + l] = pairs[q];
    }
  }
}

// Lines whose k values are a row apart (columns of B, or rows of A^T): line j's value at k is
// src[k * ld + j]. Same output as packAlongK: pair p of line j at dst[p * stride + j].
BF16_TARGET void packAcrossK(const float* src, size_t ld, size_t n, size_t kc, uint32_t* dst, size_t stride) {
  const size_t kc2 = (kc + 1) / 2;
  // interleaves [row k (16 bf16), row k+1 (16 bf16)] into 16 pairs
  const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7,
                                              22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
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

// C[rows, cols] (row stride ldc) = alpha * A-panel * B-panel + (first ? beta * C : C).
BF16_TARGET void tile(size_t kc2, const uint32_t* a, const uint32_t* b, float* c, size_t ldc, size_t rows,
                      size_t cols, float alpha, float beta, bool first) {
  __m512 acc[kMR][kNV];
#pragma GCC unroll 8
  for (size_t i = 0; i < kMR; ++i)
#pragma GCC unroll 2
    for (size_t v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (size_t p = 0; p < kc2; ++p) {
    __m512bh bv[kNV];
#pragma GCC unroll 2
    for (size_t v = 0; v < kNV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + p * kNR + 16 * v);
#pragma GCC unroll 8
    for (size_t i = 0; i < kMR; ++i) {
      const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * kMR + i]));
#pragma GCC unroll 2
      for (size_t v = 0; v < kNV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], av, bv[v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
  for (size_t i = 0; i < kMR; ++i) {
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
}  // namespace

bool bf16GemmSupported() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512bf16");
  return ok;
}

void gemmBf16(bool transA, bool transB, size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
              const float* B, size_t ldb, float beta, float* C, size_t ldc) {
  PADDLE_ENFORCE(bf16GemmSupported(), DataError, "gemmBf16: this CPU has no AVX512_BF16");
  thread_local std::vector<uint32_t> apack, bpack;
  for (size_t jc = 0; jc < N; jc += kNC) {
    const size_t nc = std::min(kNC, N - jc), nPanels = (nc + kNR - 1) / kNR;
    for (size_t pc = 0; pc < K; pc += kKC) {
      const size_t kc = std::min(kKC, K - pc), kc2 = (kc + 1) / 2;
      bpack.resize(nPanels * kc2 * kNR);
      for (size_t q = 0; q < nPanels; ++q) {
        const size_t j = jc + q * kNR, n = std::min(kNR, N - j);
        if (transB) {
          packAlongK(B + j * ldb + pc, ldb, n, kc, bpack.data() + q * kc2 * kNR, kNR);
        } else {
          packAcrossK(B + pc * ldb + j, ldb, n, kc, bpack.data() + q * kc2 * kNR, kNR);
        }
      }
      for (size_t ic = 0; ic < M; ic += kMC) {
        const size_t mc = std::min(kMC, M - ic), mPanels = (mc + kMR - 1) / kMR;
        apack.resize(mPanels * kc2 * kMR);
        for (size_t r = 0; r < mPanels; ++r) {
          const size_t i = ic + r * kMR, m = std::min(kMR, M - i);
          if (transA) {
            packAcrossK(A + pc * lda + i, lda, m, kc, apack.data() + r * kc2 * kMR, kMR);
          } else {
            packAlongK(A + i * lda + pc, lda, m, kc, apack.data() + r * kc2 * kMR, kMR);
          }
        }
        for (size_t q = 0; q < nPanels; ++q) {
          const size_t j = jc + q * kNR;
          for (size_t r = 0; r < mPanels; ++r) {
            const size_t i = ic + r * kMR;
            tile(kc2, apack.data() + r * kc2 * kMR, bpack.data() + q * kc2 * kNR, C + i * ldc + j, ldc,
                 std::min(kMR, M - i), std::min(kNR, N - j), alpha, beta, pc == 0);
          }
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
#endif

}  // namespace math
}  // namespace paddle
