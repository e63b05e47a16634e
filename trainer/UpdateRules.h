// v1's per-element update rules as PD_HD functors, which Optimizers.cpp runs through
// forEachElement (engine/math/Kernel.h) on either device. Notation: w value, g gradient (batch sum),
// lr = global rate x parameter learning_rate, mu momentum, decay = L2 rate. A rule is
// called as f(i, g[i]): the caller finds the gradient (a dense buffer, or the compact
// rows of a sparse_update parameter, which are not indexed like w).
#pragma once
#include <cmath>
#include <cstddef>

#include "engine/ActivationFunctors.h"  // PD_HD

namespace paddle {
namespace rule {

// m = mu m - lr * rate (g + decay w); w += m. Without momentum (m null: no
// buffer is kept for it) this is w -= lr * rate (g + decay w).
PD_HD inline void momentumStep(float* w, float* m, float g, float rate, float lr, float mu, float decay, size_t i) {
  float step = -lr * rate * (g + decay * w[i]);
  if (m) {
    m[i] = mu * m[i] + step;
    step = m[i];
  }
  w[i] += step;
}

// momentum SGD: m = mu m - lr (g + decay w); w += m
struct Momentum {
  float *w, *m;
  float lr, mu, decay;
  PD_HD void operator()(size_t i, float g) const { momentumStep(w, m, g, 1.0f, lr, mu, decay, i); }
};

// The AdaGrad family below ends with the same momentum step, where rate is the
// per-element rate each rule computes (kept in `rate` for L1/L2).

// adagrad: sum1 += g^2; rate = 1 / sqrt(sum0 + sum1 + eps)
struct AdaGrad {
  float *w, *m, *sum0, *sum1, *rate;
  float lr, mu, decay, eps;
  PD_HD void operator()(size_t i, float g) const {
    sum1[i] += g * g;
    rate[i] = 1.0f / sqrtf(sum0[i] + sum1[i] + eps);
    momentumStep(w, m, g, rate[i], lr, mu, decay, i);
  }
};

// adagrad of a sparse_update table: one accumulator, no rate buffer (lazy decay
// recomputes the rate from the sum: see adaGradRate).
PD_HD inline float adaGradRate(float sum, float eps) { return 1.0f / sqrtf(sum + eps); }
struct SparseAdaGrad {
  float *w, *sum;
  float lr, eps;
  PD_HD void operator()(size_t i, float g) const {
    sum[i] += g * g;
    momentumStep(w, nullptr, g, adaGradRate(sum[i], eps), lr, 0.0f, 0.0f, i);
  }
};

// adadelta: E[g^2] and E[dx^2] running averages; rate = sqrt((E[dx^2]+eps)/(E[g^2]+eps))
struct AdaDelta {
  float *w, *m, *eg2, *edx2, *rate;
  float lr, mu, decay, rho, eps;
  PD_HD void operator()(size_t i, float g) const {
    eg2[i] = rho * eg2[i] + (1 - rho) * g * g;
    rate[i] = sqrtf((edx2[i] + eps) / (eg2[i] + eps));
    float dx = g * rate[i];
    edx2[i] = rho * edx2[i] + (1 - rho) * dx * dx;
    momentumStep(w, m, g, rate[i], lr, mu, decay, i);
  }
};

// rmsprop (centred): G = rho G + (1-rho) g^2 (first update: + g^2); F = rho F + (1-rho) g;
// rate = 1 / sqrt(G - F^2 + eps)
struct RMSProp {
  float *w, *m, *sq, *mean, *rate;
  float lr, mu, decay, rho, eps;
  bool first;
  PD_HD void operator()(size_t i, float g) const {
    sq[i] = rho * sq[i] + (first ? 1.0f : 1 - rho) * g * g;
    mean[i] = rho * mean[i] + (1 - rho) * g;
    rate[i] = 1.0f / sqrtf(sq[i] - mean[i] * mean[i] + eps);
    momentumStep(w, m, g, rate[i], lr, mu, decay, i);
  }
};

// decayed_adagrad: G = rho G + (1-rho) g^2 (first update: + g^2); rate = 1 / sqrt(G + eps)
struct DecayedAdaGrad {
  float *w, *m, *sq, *rate;
  float lr, mu, decay, rho, eps;
  bool first;
  PD_HD void operator()(size_t i, float g) const {
    sq[i] = rho * sq[i] + (first ? 1.0f : 1 - rho) * g * g;
    rate[i] = 1.0f / sqrtf(sq[i] + eps);
    momentumStep(w, m, g, rate[i], lr, mu, decay, i);
  }
};

// adam (v1): m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; w -= alpha m / (sqrt(v) + eps),
// alpha = lr sqrt(1 - b2^t) / (1 - b1^t). v1 applies no L2 decay here.
struct Adam {
  float *w, *m, *v;
  float alpha, beta1, beta2, eps;
  PD_HD void operator()(size_t i, float g) const {
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    w[i] -= alpha * m[i] / (sqrtf(v[i]) + eps);
  }
};

// adamax (v1): m = b1 m + (1-b1) g; u = max(b2 u, |g|); w -= (lr / (1 - b1^t)) m / u
struct Adamax {
  float *w, *m, *u;
  float step, beta1, beta2;
  PD_HD void operator()(size_t i, float g) const {
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    float a = beta2 * u[i], b = fabsf(g);
    u[i] = a > b ? a : b;
    // u is 0 only while every gradient so far was 0 (then m is 0 too): no step, where
    // v1 computed 0/0 and wrote NaN into the weight
    if (u[i] > 0) w[i] -= step * m[i] / u[i];
  }
};

// Element-wise gradient clipping to [-t, t] (v1 clips per parameter, never by norm).
struct Clip {
  float* g;
  float t;
  PD_HD void operator()(size_t i) const { g[i] = g[i] > t ? t : (g[i] < -t ? -t : g[i]); }
};

// Decay applied after the step when L1 is on (v1 OptimizerWithRegularizer):
// w = sign(w) max(|w| - lr l1 r, 0), then w /= 1 + lr l2 r, where r is the
// per-element rate of the AdaGrad family (1 for the others).
struct L1L2Decay {
  float* w;
  const float* rate;  // may be null
  float lr, l1, l2;
  PD_HD void operator()(size_t i) const {
    float r = rate ? rate[i] : 1.0f;
    float x = w[i], t = lr * l1 * r;
    x = x > t ? x - t : (x < -t ? x + t : 0.0f);
    w[i] = x / (1.0f + lr * l2 * r);
  }
};

}  // namespace rule
}  // namespace paddle
