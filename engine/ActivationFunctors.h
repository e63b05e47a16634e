// Element-wise activation formulas shared by the CPU loops (Activation.cpp) and
// the CUDA kernels (Activation.cu): one definition, two devices.
// fwd(x) -> y; bwd(y, x) -> dy/dx (x is only read when kNeedsInput).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/math/HostDevice.h"

namespace paddle {
namespace act {

constexpr float kExpClip = 40.0f;  // v1 clips exp() arguments to avoid overflow

PD_HD inline float clip(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

// exp and tanh for the CPU loops: no libm call per element, only multiplies, adds, one
// division and bit moves, so that GCC vectorises the loops that use them (libm's expf /
// tanhf are scalar calls, a fifth of an LSTM step). Within 2 ulp of the exact value in
// the normal range (tests/engine/test_activations.py); NaN passes through, exp overflows
// to inf and underflows to 0, tanh is exactly +-1 where it rounds to that. The GPU keeps
// its own intrinsics.
namespace detail {
PD_HD inline float bitsToFloat(uint32_t i) {
  float f;
  memcpy(&f, &i, sizeof f);
  return f;
}
PD_HD inline int32_t floatToBits(float f) {
  int32_t i;
  memcpy(&i, &f, sizeof i);
  return i;
}
}  // namespace detail

PD_HD inline float vecExp(float x) {
#ifdef __CUDA_ARCH__
  return expf(x);
#else
  // exp(x) = 2^n exp(r), n = round(x / ln 2), |r| <= ln 2 / 2. Clamping to [-104, 89] keeps
  // n within [-150, 129] (results beyond round to 0 or inf anyway). A NaN stays NaN through
  // the arithmetic (its garbage n is only bits: no conversion, no overflow). fminf/fmaxf
  // or a test x != x would keep GCC from vectorising for SSE/AVX2.
  const float xc = clip(x, -104.0f, 89.0f);
  // round to nearest by adding 1.5 * 2^23: n sits in the low mantissa bits of t
  const float kShift = 12582912.0f;
  const float t = xc * 1.44269504f + kShift;
  const float nf = t - kShift;
  const int32_t n = detail::floatToBits(t) - detail::floatToBits(kShift);
  // r = x - n ln 2, with ln 2 in two parts so that n * hi is exact (Cody-Waite)
  const float r = (xc - nf * 0.693359375f) + nf * 2.12194440e-4f;
  // exp(r) - 1 - r on [-ln 2 / 2, ln 2 / 2]: the minimax polynomial of Cephes' expf
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * (r * r) + r + 1.0f;
  // 2^n as two factors, each a normal float over the whole range of n
  const int32_t n1 = n >> 1, n2 = n - n1;
  return er * detail::bitsToFloat(static_cast<uint32_t>(n1 + 127) << 23) *
         detail::bitsToFloat(static_cast<uint32_t>(n2 + 127) << 23);
#endif
}

PD_HD inline float vecTanh(float x) {
#ifdef __CUDA_ARCH__
  return tanhf(x);
#else
  // Small |x|: an odd polynomial (Cephes' tanhf coefficients), free of the cancellation of
  // the formula below; else tanh|x| = 1 - 2 / (exp(2|x|) + 1), signed. Both are computed
  // and one is selected, which keeps the loop branch-free.
  const float a = fabsf(x), z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large = copysignf(1.0f - 2.0f / (vecExp(2.0f * a) + 1.0f), x);
  return a < 0.625f ? small : large;
#endif
}

struct Linear {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return x; }
  PD_HD float bwd(float, float) const { return 1.0f; }
};
struct Sigmoid {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return 1.0f / (1.0f + vecExp(-clip(x, -kExpClip, kExpClip))); }
  PD_HD float bwd(float y, float) const { return y * (1.0f - y); }
};
struct Tanh {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return vecTanh(x); }
  PD_HD float bwd(float y, float) const { return 1.0f - y * y; }
};
struct Relu {
  static constexpr bool kNeedsInput = false;
  // x < 0 (not x > 0) so a NaN passes through: the non-finite guard must see it
  PD_HD float fwd(float x) const { return x < 0.0f ? 0.0f : x; }
  PD_HD float bwd(float y, float) const { return y > 0.0f ? 1.0f : 0.0f; }
};
struct BRelu {  // bounded relu: clip to [0, 24]
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return clip(x, 0.0f, 24.0f); }
  PD_HD float bwd(float y, float) const { return (y > 0.0f && y < 24.0f) ? 1.0f : 0.0f; }
};
struct SoftRelu {  // log(1 + e^x), x clipped to +-40
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return log1pf(expf(clip(x, -kExpClip, kExpClip))); }
  PD_HD float bwd(float y, float) const { return 1.0f - expf(-y); }
};
struct STanh {  // scaled tanh: 1.7159 * tanh(2x/3)
  static constexpr bool kNeedsInput = false;
  static constexpr float a = 1.7159f, b = 2.0f / 3.0f;
  PD_HD float fwd(float x) const { return a * vecTanh(b * x); }
  PD_HD float bwd(float y, float) const { return b / a * (a * a - y * y); }
};
struct Abs {
  static constexpr bool kNeedsInput = true;
  PD_HD float fwd(float x) const { return fabsf(x); }
  PD_HD float bwd(float, float x) const { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
};
struct Square {
  static constexpr bool kNeedsInput = true;
  PD_HD float fwd(float x) const { return x * x; }
  PD_HD float bwd(float, float x) const { return 2.0f * x; }
};
struct Exponential {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return vecExp(x); }
  PD_HD float bwd(float y, float) const { return y; }
};
struct Log {
  static constexpr bool kNeedsInput = true;
  PD_HD float fwd(float x) const { return logf(x); }
  PD_HD float bwd(float, float x) const { return 1.0f / x; }
};
struct Reciprocal {  // 1 / x; dy/dx = -y^2
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return 1.0f / x; }
  PD_HD float bwd(float y, float) const { return -y * y; }
};
struct Sqrt {  // dy/dx = 1 / (2y)
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return sqrtf(x); }
  PD_HD float bwd(float y, float) const { return 0.5f / y; }
};
struct SoftSign {  // x / (1 + |x|); dy/dx = 1 / (1 + |x|)^2 = (1 - |y|)^2
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return x / (1.0f + fabsf(x)); }
  PD_HD float bwd(float y, float) const { return (1.0f - fabsf(y)) * (1.0f - fabsf(y)); }
};

// Kinds the element-wise kernels dispatch on (softmax kinds are row-wise).
enum Kind {
  kLinear, kSigmoid, kTanh, kRelu, kBRelu, kSoftRelu, kSTanh, kAbs, kSquare, kExponential, kLog,
  kReciprocal, kSqrt, kSoftSign, kSoftmax, kSequenceSoftmax
};

// Calls f(Functor{}) for an element-wise kind; returns false for row-wise kinds.
template <typename F>
PD_HD inline bool visit(Kind k, F&& f) {
  switch (k) {
    case kLinear: f(Linear{}); return true;
    case kSigmoid: f(Sigmoid{}); return true;
    case kTanh: f(Tanh{}); return true;
    case kRelu: f(Relu{}); return true;
    case kBRelu: f(BRelu{}); return true;
    case kSoftRelu: f(SoftRelu{}); return true;
    case kSTanh: f(STanh{}); return true;
    case kAbs: f(Abs{}); return true;
    case kSquare: f(Square{}); return true;
    case kExponential: f(Exponential{}); return true;
    case kLog: f(Log{}); return true;
    case kReciprocal: f(Reciprocal{}); return true;
    case kSqrt: f(Sqrt{}); return true;
    case kSoftSign: f(SoftSign{}); return true;
    default: return false;
  }
}

}  // namespace act
}  // namespace paddle
