#include "engine/Activation.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/Errors.h"
#include "engine/math/GpuOps.h"
#include "engine/math/Kernel.h"

namespace paddle {

namespace {
const std::vector<std::pair<std::string, act::Kind>>& table() {
  static const std::vector<std::pair<std::string, act::Kind>> t = {
      {"", act::kLinear},           {"linear", act::kLinear},     {"sigmoid", act::kSigmoid},
      {"tanh", act::kTanh},         {"relu", act::kRelu},         {"brelu", act::kBRelu},
      {"softrelu", act::kSoftRelu}, {"stanh", act::kSTanh},       {"abs", act::kAbs},
      {"square", act::kSquare},     {"exponential", act::kExponential}, {"log", act::kLog},
      {"reciprocal", act::kReciprocal}, {"sqrt", act::kSqrt},     {"softsign", act::kSoftSign},
      {"softmax", act::kSoftmax},   {"sequence_softmax", act::kSequenceSoftmax}};
  return t;
}

bool needsInput(act::Kind k) {
  bool needs = false;
  act::visit(k, [&](auto f) { needs = decltype(f)::kNeedsInput; });
  return needs;
}
}  // namespace

act::Kind elementwiseKind(const std::string& type, const std::string& what) {
  for (auto& e : table()) {
    if (e.first != type) continue;
    PADDLE_ENFORCE(e.second != act::kSoftmax && e.second != act::kSequenceSoftmax && !needsInput(e.second),
                   ConfigError, what, ": activation '", type,
                   "' is not supported here (use linear, sigmoid, tanh, relu, brelu, softrelu, stanh, exponential, "
                   "reciprocal, sqrt or softsign)");
    return e.second;
  }
  throw ConfigError(str(what, ": unknown activation '", type, "'"));
}

// The CPU loops below split their elements (rows) across the thread pool.
void activate(act::Kind k, float* y, size_t n) {
  act::visit(k, [&](auto f) {
    parallelFor(n, kParallelGrain, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) y[i] = f.fwd(y[i]);
    });
  });
}

void multiplyDerivative(act::Kind k, const float* __restrict y, const float* __restrict x, float* __restrict g,
                        size_t n) {
  act::visit(k, [&](auto f) {
    parallelFor(n, kParallelGrain, [&](size_t b, size_t e) {
      if constexpr (decltype(f)::kNeedsInput) {
        for (size_t i = b; i < e; ++i) g[i] *= f.bwd(y[i], x[i]);
      } else {
        for (size_t i = b; i < e; ++i) g[i] *= f.bwd(y[i], 0.0f);
      }
    });
  });
}

namespace {
// Reductions over a row in kLanes interleaved partial results, combined in a fixed order
// (the same bits every run): GCC vectorises them, where one running sum is a chain of
// dependent adds (it may not reorder float adds itself).
constexpr size_t kLanes = 16;

template <typename Step, typename Combine>
float reduceRow(size_t w, float init, Step step, Combine combine) {
  float lane[kLanes];
  for (size_t k = 0; k < kLanes; ++k) lane[k] = init;
  size_t j = 0;
  for (; j + kLanes <= w; j += kLanes)
    for (size_t k = 0; k < kLanes; ++k) lane[k] = step(lane[k], j + k);
  float r = init;
  for (size_t k = 0; k < kLanes; ++k) r = combine(r, lane[k]);
  for (; j < w; ++j) r = step(r, j);
  return r;
}
}  // namespace

void softmaxRows(float* v, size_t h, size_t w) {
  parallelFor(h, kParallelGrain / (w + 1) + 1, [=](size_t b, size_t e) {
    auto larger = [](float a, float c) { return c > a ? c : a; };
    auto add = [](float a, float c) { return a + c; };
    for (size_t i = b; i < e; ++i) {
      float* x = v + i * w;
      const float m = reduceRow(w, -INFINITY, [x, larger](float a, size_t j) { return larger(a, x[j]); }, larger);
      for (size_t j = 0; j < w; ++j) x[j] = act::vecExp(x[j] - m);
      const float s = reduceRow(w, 0.0f, [x](float a, size_t j) { return a + x[j]; }, add);
      const float inv = 1.0f / s;
      for (size_t j = 0; j < w; ++j) x[j] *= inv;
    }
  });
}

void softmaxRowsBackward(const float* y, float* g, size_t h, size_t w) {
  parallelFor(h, kParallelGrain / (w + 1) + 1, [=](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const float* yr = y + i * w;
      float* gr = g + i * w;
      const float dot = reduceRow(w, 0.0f, [gr, yr](float a, size_t j) { return a + gr[j] * yr[j]; },
                                  [](float a, float c) { return a + c; });
      for (size_t j = 0; j < w; ++j) gr[j] = yr[j] * (gr[j] - dot);
    }
  });
}

std::vector<std::string> Activation::names() {
  std::vector<std::string> n;
  for (auto& e : table()) n.push_back(e.first);
  return n;
}

Activation::Activation(const std::string& type) : type_(type) {
  for (auto& e : table()) {
    if (e.first == type) {
      kind_ = e.second;
      return;
    }
  }
  std::string known;
  for (auto& e : table()) if (!e.first.empty()) known += (known.empty() ? "" : ", ") + e.first;
  throw ConfigError(str("unknown activation '", type, "' (known: ", known, ")"));
}

void Activation::forward(Argument& a) {
  Matrix& v = a.value;
  if (kind_ == act::kLinear || v.empty()) return;
  if (needsInput(kind_)) input_.copyFrom(v);
  if (kind_ == act::kSequenceSoftmax) {
    PADDLE_ENFORCE(v.width() == 1 && a.hasSeq(), DataError,
                   "sequence_softmax needs a sequence input of width 1, got ", shapeStr(v));
    const int* s = kernelView(a.seqStarts, starts_, v.useGpu());
    float* x = v.data();
    forEach(v.useGpu(), a.numSequences(), [=] PD_HD(size_t i) {  // one index per sequence
      float m = -INFINITY;
      for (int k = s[i]; k < s[i + 1]; ++k) m = x[k] > m ? x[k] : m;
      double sum = 0;
      for (int k = s[i]; k < s[i + 1]; ++k) sum += (x[k] = std::exp(x[k] - m));
      for (int k = s[i]; k < s[i + 1]; ++k) x[k] = static_cast<float>(x[k] / sum);
    });
    return;
  }
  if (v.useGpu()) {
#ifdef WITH_CUDA
    if (kind_ == act::kSoftmax) gpu::softmaxForward(v.data(), v.height(), v.width());
    else gpu::activationForward(kind_, v.data(), v.size());
    return;
#else
    throwNoCuda("activation");
#endif
  }
  if (kind_ == act::kSoftmax) {
    softmaxRows(v.data(), v.height(), v.width());
    return;
  }
  activate(kind_, v.data(), v.size());
}

void Activation::backward(Argument& a) {
  if (kind_ == act::kLinear || a.grad.empty()) return;
  const Matrix& y = a.value;
  Matrix& g = a.grad;
  if (kind_ == act::kSequenceSoftmax) {
    const int* s = kernelView(a.seqStarts, starts_, g.useGpu());
    const float* yv = y.data();
    float* gv = g.data();
    forEach(g.useGpu(), a.numSequences(), [=] PD_HD(size_t i) {  // g = y * (g - sum(y * g))
      double dot = 0;
      for (int k = s[i]; k < s[i + 1]; ++k) dot += yv[k] * gv[k];
      for (int k = s[i]; k < s[i + 1]; ++k) gv[k] = yv[k] * (gv[k] - static_cast<float>(dot));
    });
    return;
  }
  if (y.useGpu()) {
#ifdef WITH_CUDA
    if (kind_ == act::kSoftmax) gpu::softmaxBackward(y.data(), g.data(), y.height(), y.width());
    else gpu::activationBackward(kind_, y.data(), input_.data(), g.data(), g.size());
    return;
#else
    throwNoCuda("activation");
#endif
  }
  if (kind_ == act::kSoftmax) {
    softmaxRowsBackward(y.data(), g.data(), y.height(), y.width());
    return;
  }
  multiplyDerivative(kind_, y.data(), input_.data(), g.data(), g.size());
}

}  // namespace paddle
