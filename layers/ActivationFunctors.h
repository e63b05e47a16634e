// Element-wise activation formulas shared by the CPU loops (Activation.cpp) and
// the CUDA kernels (Activation.cu): one definition, two devices.
// fwd(x) -> y; bwd(y, x) -> dy/dx (x is only read when kNeedsInput).
#pragma once
#include <cmath>

#include "math/HostDevice.h"

namespace paddle {
namespace act {

constexpr float kExpClip = 40.0f;  // v1 clips exp() arguments to avoid overflow

PD_HD inline float clip(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

struct Linear {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return x; }
  PD_HD float bwd(float, float) const { return 1.0f; }
};
struct Sigmoid {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return 1.0f / (1.0f + expf(-clip(x, -kExpClip, kExpClip))); }
  PD_HD float bwd(float y, float) const { return y * (1.0f - y); }
};
struct Tanh {
  static constexpr bool kNeedsInput = false;
  PD_HD float fwd(float x) const { return tanhf(x); }
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
  PD_HD float fwd(float x) const { return a * tanhf(b * x); }
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
  PD_HD float fwd(float x) const { return expf(x); }
  PD_HD float bwd(float y, float) const { return y; }
};
struct Log {
  static constexpr bool kNeedsInput = true;
  PD_HD float fwd(float x) const { return logf(x); }
  PD_HD float bwd(float, float x) const { return 1.0f / x; }
};

// Kinds the element-wise kernels dispatch on (softmax kinds are row-wise).
enum Kind {
  kLinear, kSigmoid, kTanh, kRelu, kBRelu, kSoftRelu, kSTanh, kAbs, kSquare, kExponential, kLog,
  kSoftmax, kSequenceSoftmax
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
    default: return false;
  }
}

}  // namespace act
}  // namespace paddle
