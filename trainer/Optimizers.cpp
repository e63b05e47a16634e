#include <nlohmann/json.hpp>

#include "trainer/Optimizers.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <cmath>
#include <sstream>

#include "engine/Errors.h"
#include "engine/math/Kernel.h"
#include "engine/math/MathOps.h"
#include "trainer/UpdateRules.h"

namespace paddle {

// max |x| over a matrix on its device: each of up to 64k indices on the GPU (one on the
// CPU, a plain scan) takes a strided share, coalesced on the GPU, and merges its maximum
// atomically. (Outside the anonymous namespace: nvcc wants device lambdas in functions
// with external linkage.)
float maxAbs(const Matrix& m) {
  const bool gpu = m.useGpu();
  const size_t n = m.size(), lanes = gpu ? std::min<size_t>(n, 65536) : 1;
  if (n == 0) return 0;
  float host = 0;
  Matrix result;  // the GPU's result cell (pooled memory); the CPU writes `host` directly
  if (gpu) {
    result.setDevice(true);
    result.copyFromHost(&host, 1, 1);
  }
  float* out = gpu ? result.data() : &host;
  const float* x = m.data();
  forEach(gpu, lanes, [=] PD_HD(size_t lane) {
    float v = 0;
    for (size_t i = lane; i < n; i += lanes) v = fmaxf(v, fabsf(x[i]));
    atomicMaxNonNegative(out, v);
  });
  if (gpu) result.copyToHost(&host);
  return host;
}

namespace {
const char* kMethods[] = {"momentum", "adagrad", "adadelta", "rmsprop", "decayed_adagrad", "adam", "adamax"};
constexpr int64_t kAdaGradFoldPeriod = 16384;  // v1 folds sum1 into sum0 for precision
}  // namespace

LearningRateSchedule::LearningRateSchedule(const Json& opt)
    : type_(opt.getString("learning_rate_schedule")),
      lr_(opt.getDouble("learning_rate")),
      a_(opt.getDouble("learning_rate_decay_a")),
      b_(opt.getDouble("learning_rate_decay_b")) {
  static const char* known[] = {"constant", "poly", "caffe_poly", "exp", "discexp", "linear", "manual", "pass_manual"};
  bool ok = false;
  for (const char* k : known) ok = ok || type_ == k;
  PADDLE_ENFORCE(ok, ConfigError, "unknown learning_rate_schedule '", type_, "'");
  if (type_ == "manual" || type_ == "pass_manual") {
    std::stringstream ss(opt.getString("learning_rate_args"));
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
    : method_(opt.getString("learning_method")),
      schedule_(opt),
      baseLr_(opt.getDouble("learning_rate")),
      rho_(opt.getDouble("ada_rou")),
      eps_(opt.getDouble("ada_epsilon")),
      beta1_(opt.getDouble("adam_beta1")),
      beta2_(opt.getDouble("adam_beta2")),
      adamEps_(opt.getDouble("adam_epsilon")),
      globalClip_(opt.getDouble("gradient_clipping_threshold")),
      clipNorm_(opt.getDouble("gradient_clipping_norm")),
      averageWindow_(opt.getDouble("average_window")),
      maxAverageWindow_(opt.getInt("max_average_window")),
      maxWindowSet_(opt.has("max_average_window")),
      lossScale_(opt.getDouble("initial_loss_scale")),
      lossScaleGrowthInterval_(opt.getInt("loss_scale_growth_interval")) {
  PADDLE_ENFORCE(averageWindow_ >= 0, ConfigError, "average_window must be >= 0, got ", averageWindow_);
  PADDLE_ENFORCE(lossScale_ >= 1 && std::isfinite(lossScale_) && lossScaleGrowthInterval_ >= 1, ConfigError,
                 "initial_loss_scale must be a finite number >= 1 and loss_scale_growth_interval >= 1, got ",
                 lossScale_, " and ", lossScaleGrowthInterval_);
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

// Runs rule f(i, g) over the elements an update visits: every element of a dense
// gradient g, which the same pass then clears for the next batch (one sweep over memory
// fewer than a memset after), or (sparse_update) the touched rows, whose gradients g holds
// compactly (row k of g is row rows[k] of the parameter). With `marked` (a dense CPU
// gradient that only some rows hold: Parameter::rowsWithGradient) the other rows run the
// rule on a zero gradient without reading or clearing theirs: an embedding table's dense
// update moves a quarter less memory.
template <typename F>
void applyRule(const F& f, Matrix& grad, const std::vector<int>* rows, size_t cols, const uint8_t* marked) {
  float* g = grad.data();
  // (rows own their elements: the bits do not depend on the split; under
  // PADDLE_REVERSE_KERNELS every element takes forEachElement's reversed loop below)
  if (marked && !reverseKernelOrder()) {
    parallelFor(grad.height(), std::max<size_t>(1, kParallelGrain / std::max<size_t>(cols, 1)),
                [&](size_t b, size_t e) {
      for (size_t r = b; r < e; ++r) {
        float* gr = g + r * cols;
        const size_t base = r * cols;
        if (marked[r]) {
#pragma GCC ivdep
          for (size_t j = 0; j < cols; ++j) {
            f(base + j, gr[j]);
            gr[j] = 0.0f;
          }
        } else {
#pragma GCC ivdep
          for (size_t j = 0; j < cols; ++j) f(base + j, 0.0f);
        }
      }
    });
    return;
  }
  if (!rows) {
    forEachElement(grad.useGpu(), grad.size(), [=] PD_HD(size_t i) {
      f(i, g[i]);
      g[i] = 0.0f;
    });
    return;
  }
  // (the rows are distinct: their chunks write disjoint memory, the bits do not depend on the split)
  const int* ids = rows->data();
  parallelFor(rows->size(), std::max<size_t>(1, kParallelGrain / std::max<size_t>(cols, 1)), [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const float* gk = g + k * cols;
      const size_t base = static_cast<size_t>(ids[k]) * cols;
#pragma GCC ivdep
      for (size_t j = 0; j < cols; ++j) f(base + j, gk[j]);
    }
  });
}

namespace {
bool supportsSparse(const std::string& method) {
  return method == "momentum" || method == "adagrad" || method == "rmsprop" || method == "decayed_adagrad";
}
}  // namespace

void ParameterUpdater::AbsStats::add(const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    sum += std::fabs(x[i]);
    max = std::max<double>(max, std::fabs(x[i]));
  }
  count += static_cast<double>(n);
}

void ParameterUpdater::update(Parameter& p) {
  if (p.isStatic()) return;
  const bool sparse = p.sparseUpdate();
  const std::vector<int>* rows = sparse && !p.allRowsTouched() ? &p.touchedRows() : nullptr;
  // (grad() would mark every row touched)
  Matrix grad = rows ? p.touchedGrad() : p.buffer(PARAMETER_GRADIENT);
  float* w = p.value().data();
  const uint8_t* marked = rows || grad.useGpu() ? nullptr : p.rowsWithGradient();
  auto apply = [&](const auto& f) { applyRule(f, grad, rows, p.cols(), marked); };
  if (recordGradStats_) {
    GradStats& st = gradStats_[p.name()];
    st = GradStats();
    std::vector<float> host(grad.size());
    grad.copyToHost(host.data());
    st.grad.add(host.data(), host.size());
  }
  double clip = p.clippingThreshold() > 0 ? p.clippingThreshold() : globalClip_;
  if (clip > 0 && maxAbs(grad) > clip) {
    forEachElement(grad.useGpu(), grad.size(), rule::Clip{grad.data(), static_cast<float>(clip)});
  }

  const float lr = static_cast<float>(lr_ * p.learningRate());
  const float mu = momentumOff_ && !sparse ? 0.0f : static_cast<float>(p.momentum());
  const float l1 = static_cast<float>(p.decayRateL1());
  const float l2 = static_cast<float>(p.decayRate());
  // v1: with L1 on, or for sparse_update parameters, decay is a separate step
  // after the rule (lazy for rows a batch did not touch); otherwise L2 is the
  // rule's "+ decay * w" gradient term.
  const bool postDecay = l1 > 0 || sparse;
  const float decay = postDecay ? 0.0f : l2;
  PADDLE_ENFORCE(!(l1 > 0 && mu != 0), ConfigError, "parameter '", p.name(),
                 "': L1 decay (decay_rate_l1) cannot be combined with momentum");
  if (sparse) {
    PADDLE_ENFORCE(supportsSparse(method_), ConfigError, "parameter '", p.name(), "': learning_method '", method_,
                   "' does not support sparse_update (use momentum 0, adagrad, rmsprop or decayed_adagrad)");
    PADDLE_ENFORCE(mu == 0, ConfigError, "parameter '", p.name(), "': sparse_update needs momentum 0");
  }
  auto seen = updateCount_.find(&p);
  if (seen == updateCount_.end()) {
    params_.push_back(&p);
    auto pending = pendingCounts_.find(p.name());  // from loadStateJson
    seen = updateCount_.emplace(&p, pending == pendingCounts_.end() ? 0 : pending->second).first;
  }
  int64_t count = seen->second++;
  if (sparse) catchUpState(p, rows, count);  // rows skipped by earlier updates
  auto buf = [&](ParameterType t) { return p.buffer(t).data(); };
  float* rate = nullptr;  // per-element rate of the AdaGrad family
  float* m = mu != 0 ? buf(PARAMETER_MOMENTUM) : nullptr;  // no buffer without momentum

  const float rho = static_cast<float>(rho_), eps = static_cast<float>(eps_);
  if (method_ == "momentum") {
    apply(rule::Momentum{w, m, lr, mu, decay});
  } else if (method_ == "adagrad" && sparse) {
    // A table's state is as large as its value, so it keeps one accumulator and
    // no rate buffer (v1's sum0/sum1 split only guards precision over long runs). It
    // stays dense: sparse_ctr's batches (~20k random ids of 1M) touch 98% of the rows
    // within 200 batches, so rows allocated on first touch would save memory only
    // briefly and cost a lookup per row.
    if (p.hasBuffer(PARAMETER_GRADIENT_SQURESUM1)) {  // state saved in the dense layout: fold it
      math::axpby(1.0f, p.buffer(PARAMETER_GRADIENT_SQURESUM1), 1.0f, p.buffer(PARAMETER_GRADIENT_SQURESUM));
      p.buffer(PARAMETER_GRADIENT_SQURESUM1).zero();  // (it may be a caller's buffer, handed in again)
      p.dropBuffer(PARAMETER_GRADIENT_SQURESUM1);
      p.dropBuffer(PARAMETER_LEARNING_RATE);
    }
    apply(rule::SparseAdaGrad{w, buf(PARAMETER_GRADIENT_SQURESUM), lr, eps});
  } else if (method_ == "adagrad") {
    float* sum0 = buf(PARAMETER_GRADIENT_SQURESUM);
    float* sum1 = buf(PARAMETER_GRADIENT_SQURESUM1);
    if (count > 0 && count % kAdaGradFoldPeriod == 0) {  // fold sum1 into sum0
      Matrix& s1 = p.buffer(PARAMETER_GRADIENT_SQURESUM1);
      math::axpby(1.0f, s1, 1.0f, p.buffer(PARAMETER_GRADIENT_SQURESUM));
      s1.zero();
    }
    rate = buf(PARAMETER_LEARNING_RATE);
    apply(rule::AdaGrad{w, m, sum0, sum1, rate, lr, mu, decay, eps});
  } else if (method_ == "adadelta") {
    rate = buf(PARAMETER_LEARNING_RATE);
    apply(rule::AdaDelta{w, m, buf(PARAMETER_GRADIENT_SQURESUM), buf(PARAMETER_GRADIENT_SQURESUM1), rate, lr, mu,
                         decay, rho, eps});
  } else if (method_ == "rmsprop") {
    rate = buf(PARAMETER_LEARNING_RATE);
    apply(rule::RMSProp{w, m, buf(PARAMETER_GRADIENT_SQURESUM), buf(PARAMETER_GRADIENT_SQURESUM1), rate, lr, mu,
                        decay, rho, eps, count == 0});
    if (sparse) markStateCurrent(p, rows, count + 1);
  } else if (method_ == "decayed_adagrad") {
    rate = buf(PARAMETER_LEARNING_RATE);
    apply(rule::DecayedAdaGrad{w, m, buf(PARAMETER_GRADIENT_SQURESUM), rate, lr, mu, decay, rho, eps, count == 0});
    if (sparse) markStateCurrent(p, rows, count + 1);
  } else if (method_ == "adam") {
    const double t = static_cast<double>(step_);
    const float alpha = static_cast<float>(lr * std::sqrt(1 - std::pow(beta2_, t)) / (1 - std::pow(beta1_, t)));
    apply(rule::Adam{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_SECOND_MOMENTUM), alpha, static_cast<float>(beta1_),
                     static_cast<float>(beta2_), static_cast<float>(adamEps_)});
  } else {  // adamax
    const float step = static_cast<float>(lr / (1 - std::pow(beta1_, static_cast<double>(step_))));
    apply(rule::Adamax{w, buf(PARAMETER_MOMENTUM), buf(PARAMETER_WEIGHTED_INFINITY_NORM), step,
                       static_cast<float>(beta1_), static_cast<float>(beta2_)});
  }
  if (sparse) {
    // This update's decay: touched rows now, the others when next read (lazily).
    p.setDecayClock(count + 1, lr, decayRate(p));
    if (rows) p.catchUpRows(rows->data(), rows->size(), true);
    else p.catchUpAllRows();
  } else if (postDecay && (l1 > 0 || l2 > 0)) {
    forEachElement(p.useGpu(), p.size(), rule::L1L2Decay{w, rate, lr, l1, l2});
  }
  if (averaging()) math::axpby(1.0f, p.value(), 1.0f, p.buffer(PARAMETER_SUM1));
  if (sparse) p.zeroGrad();  // (a dense gradient is zero already: applyRule cleared it)
  p.clearRowMarks();
}

namespace {
// Calls f on the gradient values of p: a sparse-update parameter's touched rows only.
void forGradientRows(Parameter& p, const std::function<void(float*, size_t)>& f) {
  Matrix g = p.sparseUpdate() && !p.allRowsTouched() ? p.touchedGrad() : p.buffer(PARAMETER_GRADIENT);
  f(g.data(), g.size());
}

// The squared L2 norm of all trainable gradients (NaN or inf where one is not finite).
double squaredGradientNorm(const std::vector<ParameterPtr>& params) {
  double sq = 0;
  for (auto& p : params) {
    if (p->isStatic()) continue;
    if (p->useGpu()) {  // dense on the GPU (sparse_update is CPU-only)
      Matrix& g = p->buffer(PARAMETER_GRADIENT);
      Matrix acc(1, 1, true);
      acc.zero();
      math::addDot(g, g, acc.data());
      float v = 0;
      acc.copyToHost(&v);
      sq += v;
      continue;
    }
    forGradientRows(*p, [&](float* x, size_t n) {
      for (size_t i = 0; i < n; ++i) sq += static_cast<double>(x[i]) * x[i];
    });
  }
  return sq;
}

void scaleGradients(const std::vector<ParameterPtr>& params, float scale) {
  for (auto& p : params) {
    if (p->isStatic()) continue;
    if (p->useGpu()) {
      Matrix& g = p->buffer(PARAMETER_GRADIENT);
      math::axpby(0.0f, g, scale, g);
      continue;
    }
    forGradientRows(*p, [&](float* x, size_t n) {
      for (size_t i = 0; i < n; ++i) x[i] *= scale;
    });
  }
}
}  // namespace

double ParameterUpdater::clipByGlobalNorm(const std::vector<ParameterPtr>& params) {
  if (clipNorm_ <= 0) return 0.0;
  const double norm = std::sqrt(squaredGradientNorm(params));
  if (norm > clipNorm_) scaleGradients(params, static_cast<float>(clipNorm_ / norm));
  return norm;
}

bool ParameterUpdater::gradientsFinite(const std::vector<ParameterPtr>& params) const {
  return std::isfinite(squaredGradientNorm(params));
}

bool ParameterUpdater::takeScaledGradients(const std::vector<ParameterPtr>& params, bool finite) {
  if (!lossScaling_) return true;
  if (!finite) {
    lossScale_ = std::max(1.0, lossScale_ / 2);
    cleanSteps_ = 0;
    ++lossScaleSkips_;
    return false;
  }
  scaleGradients(params, static_cast<float>(1.0 / lossScale_));
  if (++cleanSteps_ == lossScaleGrowthInterval_) {
    lossScale_ *= 2;
    cleanSteps_ = 0;
  }
  return true;
}

void ParameterUpdater::catchUp() {
  for (Parameter* p : params_) {
    if (!p->sparseUpdate()) continue;
    p->catchUpAllRows();
    catchUpState(*p, nullptr, updateCount_.at(p));
  }
}

Parameter::RowRate ParameterUpdater::decayRate(Parameter& p) const {
  Parameter* q = &p;
  const size_t cols = p.cols();
  if (method_ == "adagrad") {  // a table's rate is not kept: recomputed, bit for bit, from its sum
    const float eps = static_cast<float>(eps_);
    return [q, cols, eps](size_t r, float* out) {
      const float* sum = q->buffer(PARAMETER_GRADIENT_SQURESUM).row(r);
      for (size_t j = 0; j < cols; ++j) out[j] = rule::adaGradRate(sum[j], eps);
    };
  }
  if (method_ == "rmsprop" || method_ == "decayed_adagrad") {
    return [q, cols](size_t r, float* out) {
      const float* rate = q->buffer(PARAMETER_LEARNING_RATE).row(r);
      std::copy(rate, rate + cols, out);
    };
  }
  return nullptr;
}

// rmsprop / decayed_adagrad decay their accumulators at every update; a row
// skipped by `missed` updates gets rho^missed at once before its next update.
void ParameterUpdater::catchUpState(Parameter& p, const std::vector<int>* rows, int64_t now) {
  if (method_ != "rmsprop" && method_ != "decayed_adagrad") return;
  std::vector<int64_t>& clock = p.stateClock();
  float* sq = p.buffer(PARAMETER_GRADIENT_SQURESUM).data();
  float* mean = method_ == "rmsprop" ? p.buffer(PARAMETER_GRADIENT_SQURESUM1).data() : nullptr;
  const size_t cols = p.cols();
  auto row = [&](size_t r) {
    int64_t missed = now - clock[r];
    clock[r] = now;
    if (missed <= 0) return;
    const float f = static_cast<float>(std::pow(rho_, static_cast<double>(missed)));
    for (size_t i = r * cols, e = i + cols; i < e; ++i) {
      sq[i] *= f;
      if (mean) mean[i] *= f;
    }
  };
  if (rows) {
    for (int r : *rows) row(r);
  } else {
    for (size_t r = p.ownedBegin(); r < p.ownedEnd(); ++r) row(r);  // (a sharded table: its own rows)
  }
}

namespace {
constexpr int64_t kMaxAccumulatesBeforeFold = 16384;  // v1 folds SUM1 into SUM2 for precision
}

void ParameterUpdater::finishBatch() {
  ++step_;
  if (!averaging()) return;
  ++numUpdates_;
  ++numAccumulates_;
  if (numAccumulates_ % kMaxAccumulatesBeforeFold == 0) {
    for (Parameter* p : params_) {
      math::axpby(1.0f, p->buffer(PARAMETER_SUM1), 1.0f, p->buffer(PARAMETER_SUM2));
      p->buffer(PARAMETER_SUM1).zero();
    }
  }
  const int64_t minWindow = std::min<int64_t>(10000, maxAverageWindow_);
  const double wanted = std::min<double>(static_cast<double>(maxAverageWindow_), numUpdates_ * averageWindow_);
  if (numAccumulates_ >= minWindow && numAccumulates_ >= wanted) {
    // Roll the window: the last window's sum moves to SUM3.
    for (Parameter* p : params_) {
      Matrix& s3 = p->buffer(PARAMETER_SUM3);
      s3.copyFrom(p->buffer(PARAMETER_SUM1));
      math::axpby(1.0f, p->buffer(PARAMETER_SUM2), 1.0f, s3);
      p->buffer(PARAMETER_SUM1).zero();
      p->buffer(PARAMETER_SUM2).zero();
    }
    oldNumAccumulates_ = numAccumulates_;
    numAccumulates_ = 0;
  }
}

void ParameterUpdater::finishPass(int64_t batchesInPass) {
  if (averaging() && !maxWindowSet_ && batchesInPass > 0) maxAverageWindow_ = batchesInPass;
}

void ParameterUpdater::apply() {
  if (!averaging() || applied_) return;
  const int64_t count = numAccumulates_ + oldNumAccumulates_;
  if (count == 0) return;
  for (Parameter* p : params_) {
    p->buffer(PARAMETER_APPLY).copyFrom(p->value());
    Matrix& v = p->value();
    v.copyFrom(p->buffer(PARAMETER_SUM1));
    math::axpby(1.0f, p->buffer(PARAMETER_SUM2), 1.0f, v);
    math::axpby(1.0f, p->buffer(PARAMETER_SUM3), 1.0f, v);
    math::axpby(0.0f, v, static_cast<float>(1.0 / count), v);
  }
  applied_ = true;
}

void ParameterUpdater::restore() {
  if (!applied_) return;
  for (Parameter* p : params_) p->value().copyFrom(p->buffer(PARAMETER_APPLY));
  applied_ = false;
}

std::vector<ParameterType> ParameterUpdater::stateBuffers() const {
  std::vector<ParameterType> b;
  if (method_ == "momentum") b = {PARAMETER_MOMENTUM};
  // (the per-element rate of the AdaGrad family: lazy decay of sparse rows reads it)
  else if (method_ == "adagrad" || method_ == "adadelta" || method_ == "rmsprop")
    b = {PARAMETER_MOMENTUM, PARAMETER_GRADIENT_SQURESUM, PARAMETER_GRADIENT_SQURESUM1, PARAMETER_LEARNING_RATE};
  else if (method_ == "decayed_adagrad") b = {PARAMETER_MOMENTUM, PARAMETER_GRADIENT_SQURESUM, PARAMETER_LEARNING_RATE};
  else if (method_ == "adam") b = {PARAMETER_MOMENTUM, PARAMETER_SECOND_MOMENTUM};
  else if (method_ == "adamax") b = {PARAMETER_MOMENTUM, PARAMETER_WEIGHTED_INFINITY_NORM};
  if (averaging()) {  // saved weights are averaged: keep the trained ones too
    b.push_back(PARAMETER_VALUE);
    b.push_back(PARAMETER_SUM1);
    b.push_back(PARAMETER_SUM2);
    b.push_back(PARAMETER_SUM3);
  }
  return b;
}

std::string ParameterUpdater::stateJson(const BufferNames& buffers) const {
  nlohmann::ordered_json s = {{"num_samples", numSamples_}, {"step", step_}, {"num_updates", numUpdates_},
                              {"num_accumulates", numAccumulates_}, {"old_num_accumulates", oldNumAccumulates_},
                              {"max_average_window", maxAverageWindow_}};
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  for (const Parameter* p : params_) counts[p->name()] = updateCount_.at(p);
  s["update_counts"] = std::move(counts);
  s["buffers"] = buffers;
  if (lossScaling_) {
    s["loss_scale"] = lossScale_;
    s["loss_scale_clean_steps"] = cleanSteps_;
  }
  return s.dump();
}

namespace {
// A counter of the optimizer state: present, an integer, and not below `min`.
int64_t stateCounter(const Json& s, const std::string& key, int64_t min) {
  const Json& v = s[key];
  if (v.isNull()) throw ConfigError(str("'", key, "' is missing"));
  int64_t n;
  try {
    n = v.asInt();
  } catch (const ConfigError& e) {
    throw ConfigError(str("'", key, "': ", e.what()));
  }
  if (n < min) throw ConfigError(str("'", key, "' is ", n, ", below ", min));
  return n;
}
}  // namespace

void ParameterUpdater::loadStateJson(const std::string& json, const std::set<std::string>& parameterNames) {
  Json s = Json::parse(json);
  if (s.type() != Json::Type::Object) throw ConfigError("expected a JSON object");
  numSamples_ = stateCounter(s, "num_samples", 0);
  step_ = stateCounter(s, "step", 1);
  numUpdates_ = stateCounter(s, "num_updates", 0);
  numAccumulates_ = stateCounter(s, "num_accumulates", 0);
  oldNumAccumulates_ = stateCounter(s, "old_num_accumulates", 0);
  maxAverageWindow_ = stateCounter(s, "max_average_window", 0);
  if (lossScaling_ && s.has("loss_scale")) {  // (state saved in another precision has none)
    lossScale_ = s["loss_scale"].asDouble();
    if (!(lossScale_ >= 1 && std::isfinite(lossScale_))) throw ConfigError("'loss_scale' must be a finite number >= 1");
    cleanSteps_ = stateCounter(s, "loss_scale_clean_steps", 0);
  }
  const Json& counts = s["update_counts"];
  if (counts.type() != Json::Type::Object) throw ConfigError("'update_counts' must be an object");
  pendingCounts_.clear();
  for (auto& kv : counts.members()) {
    if (!parameterNames.count(kv.first)) throw ConfigError(str("'update_counts' names '", kv.first, "', not a parameter of this model"));
    pendingCounts_[kv.first] = stateCounter(counts, kv.first, 0);
  }
  loadedBuffers_.clear();
  hasLoadedBuffers_ = s.has("buffers");
  if (!hasLoadedBuffers_) return;
  const Json& buffers = s["buffers"];
  if (buffers.type() != Json::Type::Object) throw ConfigError("'buffers' must be an object");
  for (auto& kv : buffers.members()) {
    if (!parameterNames.count(kv.first)) throw ConfigError(str("'buffers' names '", kv.first, "', not a parameter of this model"));
    if (kv.second.type() != Json::Type::Array) throw ConfigError(str("'buffers' of '", kv.first, "' must be a list"));
    for (auto& b : kv.second.items()) loadedBuffers_[kv.first].push_back(b.asString());
  }
}

}  // namespace paddle
