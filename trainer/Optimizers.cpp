#include "Optimizers.h"

#include <cmath>
#include <sstream>

#include "../layers/Errors.h"
#include "../layers/math/MathOps.h"
#include "UpdateRules.h"

namespace paddle {

namespace gpu {
// Optimizers.cu
void apply(const rule::Momentum& f, size_t n);
void apply(const rule::AdaGrad& f, size_t n);
void apply(const rule::AdaDelta& f, size_t n);
void apply(const rule::RMSProp& f, size_t n);
void apply(const rule::DecayedAdaGrad& f, size_t n);
void apply(const rule::Adam& f, size_t n);
void apply(const rule::Adamax& f, size_t n);
void apply(const rule::Clip& f, size_t n);
void apply(const rule::L1L2Decay& f, size_t n);
float maxAbs(const float* x, size_t n);
}  // namespace gpu

namespace {
template <typename F>
void run(const F& f, size_t n, bool onGpu) {
  if (onGpu) {
#ifdef WITH_CUDA
    gpu::apply(f, n);
    return;
#else
    throwNoCuda("parameter update");
#endif
  }
  for (size_t i = 0; i < n; ++i) f(i);
}

float maxAbs(const Matrix& m) {
#ifdef WITH_CUDA
  if (m.useGpu()) return gpu::maxAbs(m.data(), m.size());
#endif
  float r = 0;
  const float* x = m.data();
  for (size_t i = 0; i < m.size(); ++i) r = std::max(r, std::fabs(x[i]));
  return r;
}

const char* kMethods[] = {"momentum", "adagrad", "adadelta", "rmsprop", "decayed_adagrad", "adam", "adamax"};
constexpr int64_t kAdaGradFoldPeriod = 16384;  // v1 folds sum1 into sum0 for precision
}  // namespace

LearningRateSchedule::LearningRateSchedule(const Json& opt)
    : type_(opt.getString("learning_rate_schedule", "constant")),
      lr_(opt.getDouble("learning_rate", 0.0)),
      a_(opt.getDouble("learning_rate_decay_a", 0.0)),
      b_(opt.getDouble("learning_rate_decay_b", 0.0)) {
  static const char* known[] = {"constant", "poly", "caffe_poly", "exp", "discexp", "linear", "manual", "pass_manual"};
  bool ok = false;
  for (const char* k : known) ok = ok || type_ == k;
  PADDLE_ENFORCE(ok, ConfigError, "unknown learning_rate_schedule '", type_, "'");
  if (type_ == "manual" || type_ == "pass_manual") {
    std::stringstream ss(opt.getString("learning_rate_args", ""));
    std::string seg;
    while (std::getline(ss, seg, ',')) {
      size_t colon = seg.find(':');
      PADDLE_ENFORCE(colon != std::string::npos, ConfigError, "learning_rate_args: segment '", seg,
                     "' is not 'bound:rate'");
      segments_.emplace_back(std::stod(seg.substr(0, colon)), std::stod(seg.substr(colon + 1)));
    }
    PADDLE_ENFORCE(!segments_.empty(), ConfigError, "learning_rate_schedule '", type_,
                   "' needs learning_rate_args like '1000:1.0,2000:0.5'");
  }
  if (type_ == "exp" || type_ == "discexp") {
    PADDLE_ENFORCE(b_ > 0, ConfigError, "learning_rate_schedule '", type_, "' needs learning_rate_decay_b > 0");
  }
}

double LearningRateSchedule::rate(int64_t n, int pass) const {
  double x = static_cast<double>(n);
  if (type_ == "constant") return lr_;
  if (type_ == "poly") return lr_ * std::pow(1.0 + a_ * x, -b_);
  if (type_ == "caffe_poly") return x > a_ ? 0.0 : lr_ * std::pow(1.0 - x / a_, b_);
  if (type_ == "exp") return lr_ * std::pow(a_, x / b_);
  if (type_ == "discexp") return lr_ * std::pow(a_, std::floor(x / b_));
  if (type_ == "linear") return std::max(lr_ - a_ * x, b_);
  double pos = type_ == "pass_manual" ? pass : x;
  for (auto& s : segments_) if (pos <= s.first) return lr_ * s.second;
  return lr_ * segments_.back().second;
}

ParameterUpdater::ParameterUpdater(const Json& opt)
    : method_(opt.getString("learning_method", "momentum")),
      schedule_(opt),
      baseLr_(opt.getDouble("learning_rate", 0.0)),
      rho_(opt.getDouble("ada_rou", 0.95)),
      eps_(opt.getDouble("ada_epsilon", 1e-6)),
      beta1_(opt.getDouble("adam_beta1", 0.9)),
      beta2_(opt.getDouble("adam_beta2", 0.999)),
      adamEps_(opt.getDouble("adam_epsilon", 1e-8)),
      globalClip_(opt.getDouble("gradient_clipping_threshold", 0.0)) {
  if (method_ == "torch_momentum" || method_ == "sparse_momentum") method_ = "momentum";
  bool ok = false;
  std::string known;
  for (const char* m : kMethods) {
    ok = ok || method_ == m;
    known += (known.empty() ? "" : ", ") + std::string(m);
  }
  PADDLE_ENFORCE(ok, ConfigError, "unknown learning_method '", method_, "' (known: ", known, ")");
}

void ParameterUpdater::startBatch(int64_t batchSize) {
  numSamples_ += batchSize;
  // v1: adagrad, adam and adamax ignore the schedule and use the constant rate.
  bool scheduled = method_ != "adagrad" && method_ != "adam" && method_ != "adamax";
  lr_ = scheduled ? schedule_.rate(numSamples_, pass_) : baseLr_;
}

void ParameterUpdater::update(Parameter& p) {
  if (p.isStatic()) return;
  const size_t n = p.size();
  const bool onGpu = p.useGpu();
  float* w = p.value().data();
  float* g = p.grad().data();
  double clip = p.clippingThreshold() > 0 ? p.clippingThreshold() : globalClip_;
  if (clip > 0 && maxAbs(p.grad()) > clip) run(rule::Clip{g, static_cast<float>(clip)}, n, onGpu);

  const float lr = static_cast<float>(lr_ * p.learningRate());
  const float mu = static_cast<float>(p.momentum());
  const float l1 = static_cast<float>(p.decayRateL1());
  // With L1 on, decay moves out of the rule into a step after it (v1).
  const float l2 = static_cast<float>(p.decayRate());
  const float decay = l1 > 0 ? 0.0f : l2;
  PADDLE_ENFORCE(!(l1 > 0 && mu != 0), ConfigError, "parameter '", p.name(),
                 "': L1 decay (decay_rate_l1) cannot be combined with momentum");
  int64_t count = updateCount_[&p]++;
  auto buf = [&](ParameterType t) { return p.buffer(t).data(); };
  float* rate = nullptr;  // per-element rate of the AdaGrad family

  const float rho = static_cast<float>(rho_), eps = static_cast<float>(eps_);
  if (method_ == "momentum") {
    run(rule::Momentum{w, buf(PARAMETER_MOMENTUM), g, lr, mu, decay}, n, onGpu);
  } else if (method_ == "adagrad") {
    float* sum0 = buf(PARAMETER_GRADIENT_SQURESUM);
    float* sum1 = buf(PARAMETER_GRADIENT_SQURESUM1);
    if (count > 0 && count % kAdaGradFoldPeriod == 0) {  // fold sum1 into sum0
      Matrix& s1 = p.buffer(PARAMETER_GRADIENT_SQURESUM1);
      math::axpby(1.0f, s1, 1.0f, p.buffer(PARAMETER_GRADIENT_SQURESUM));
      s1.zero();
    }
    rate = buf(PARAMETER_LEARNING_RATE);
    run(rule::AdaGrad{w, buf(PARAMETER_MOMENTUM), sum0, sum1, rate, g, lr, mu, decay, eps}, n, onGpu);
  } else if (method_ == "adadelta") {
    rate = buf(PARAMETER_LEARNING_RATE);
    run(rule::AdaDelta{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_GRADIENT_SQURESUM),
                       buf(PARAMETER_GRADIENT_SQURESUM1), rate, g, lr, mu, decay, rho, eps}, n, onGpu);
  } else if (method_ == "rmsprop") {
    rate = buf(PARAMETER_LEARNING_RATE);
    run(rule::RMSProp{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_GRADIENT_SQURESUM),
                      buf(PARAMETER_GRADIENT_SQURESUM1), rate, g, lr, mu, decay, rho, eps, count == 0},
        n, onGpu);
  } else if (method_ == "decayed_adagrad") {
    rate = buf(PARAMETER_LEARNING_RATE);
    run(rule::DecayedAdaGrad{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_GRADIENT_SQURESUM), rate, g, lr,
                             mu, decay, rho, eps, count == 0},
        n, onGpu);
  } else if (method_ == "adam") {
    const double t = static_cast<double>(step_);
    const float alpha = static_cast<float>(lr * std::sqrt(1 - std::pow(beta2_, t)) / (1 - std::pow(beta1_, t)));
    run(rule::Adam{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_SECOND_MOMENTUM), g, alpha,
                   static_cast<float>(beta1_), static_cast<float>(beta2_), static_cast<float>(adamEps_)},
        n, onGpu);
  } else {  // adamax
    const float step = static_cast<float>(lr / (1 - std::pow(beta1_, static_cast<double>(step_))));
    run(rule::Adamax{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_WEIGHTED_INFINITY_NORM), g, step,
                     static_cast<float>(beta1_), static_cast<float>(beta2_)},
        n, onGpu);
  }
  if (l1 > 0) run(rule::L1L2Decay{w, rate, lr, l1, l2}, n, onGpu);
  p.zeroGrad();
}

}  // namespace paddle
