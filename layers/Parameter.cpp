#include "Parameter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include "Errors.h"
#include "InputFile.h"

namespace paddle {

namespace {
struct FileHeader {  // v1 Parameter::save header, 16 bytes, native byte order
  int32_t version;
  uint32_t valueSize;
  uint64_t size;
};
static_assert(sizeof(FileHeader) == 16, "v1 parameter header is 16 bytes");
}  // namespace

Parameter::Parameter(const Json& config, bool useGpu)
    : config_(config),
      name_(config.getString("name")),
      size_(static_cast<size_t>(config.getInt("size"))),
      dims_(config.getInts("dims")),
      isStatic_(config.getBool("is_static")),
      useGpu_(useGpu) {
  PADDLE_ENFORCE(!name_.empty(), ConfigError, "a parameter has no name");
  PADDLE_ENFORCE(size_ > 0, ConfigError, "parameter '", name_, "' has size 0");
  if (dims_.size() == 2 && dims_[0] * dims_[1] == static_cast<int64_t>(size_)) {
    rows_ = dims_[0];
    cols_ = dims_[1];
  } else {
    rows_ = 1;
    cols_ = size_;
  }
  bufs_[PARAMETER_VALUE] = Matrix(rows_, cols_, useGpu);
  bufs_[PARAMETER_VALUE].zero();
  if (!isStatic_) buffer(PARAMETER_GRADIENT);
  sparseUpdate_ = !isStatic_ && config.getBool("sparse_update");
  if (sparseUpdate_) {
    PADDLE_ENFORCE(!useGpu, UnsupportedError, "parameter '", name_, "': sparse_update is CPU-only");
    rowMark_.assign(rows_, 0);
    decayClock_.assign(rows_, 0);
    stateClock_.assign(rows_, 0);
  }
}

Matrix& Parameter::gradRows(const int* rows, size_t n) {
  Matrix& g = bufs_[PARAMETER_GRADIENT];
  if (!sparseUpdate_ || allRowsTouched_) return g;
  for (size_t i = 0; i < n; ++i) {
    int r = rows[i];
    if (r == -1) continue;  // v1's ignored id: no row
    PADDLE_ENFORCE(r >= 0 && static_cast<size_t>(r) < rows_, DataError, "parameter '", name_, "': row ", r,
                   " outside [0, ", rows_, ")");
    if (!rowMark_[r]) {
      rowMark_[r] = 1;
      touched_.push_back(r);
    }
  }
  return g;
}

void Parameter::setDecayClock(int64_t updates, float lr, bool perElementRate) {
  decayUpdates_ = updates;
  decayLr_ = lr;
  decayPerElement_ = perElementRate;
}

void Parameter::catchUpRow(size_t r) {
  const int64_t dt = decayUpdates_ - decayClock_[r];
  decayClock_[r] = decayUpdates_;
  const double l1 = decayRateL1(), l2 = decayRate();
  if (dt <= 0 || (l1 <= 0 && l2 <= 0)) return;
  float* w = value().row(r);
  const float* rate = decayPerElement_ ? buffer(PARAMETER_LEARNING_RATE).row(r) : nullptr;
  for (size_t j = 0; j < cols_; ++j) {
    const double k = decayLr_ * (rate ? rate[j] : 1.0);
    double x = w[j];
    if (l1 > 0 && l2 > 0) {  // shrink then scale, once per missed update
      for (int64_t s = 0; s < dt; ++s) {
        x = x > k * l1 ? x - k * l1 : (x < -k * l1 ? x + k * l1 : 0.0);
        x /= 1 + k * l2;
      }
    } else if (l1 > 0) {  // repeated shrinking = one shrink by the sum
      double t = k * l1 * dt;
      x = x > t ? x - t : (x < -t ? x + t : 0.0);
    } else {
      x /= std::pow(1 + k * l2, static_cast<double>(dt));
    }
    w[j] = static_cast<float>(x);
  }
}

void Parameter::catchUpRows(const int* rows, size_t n) {
  if (!sparseUpdate_) return;
  for (size_t i = 0; i < n; ++i) {
    if (rows[i] >= 0 && static_cast<size_t>(rows[i]) < rows_) catchUpRow(rows[i]);
  }
}

void Parameter::catchUpAllRows() {
  if (!sparseUpdate_) return;
  for (size_t r = 0; r < rows_; ++r) catchUpRow(r);
}

void Parameter::resetRowClocks(int64_t updates) {
  if (!sparseUpdate_) return;
  decayUpdates_ = updates;
  std::fill(decayClock_.begin(), decayClock_.end(), updates);
  std::fill(stateClock_.begin(), stateClock_.end(), updates);
}

void Parameter::zeroGrad() {
  Matrix& g = bufs_[PARAMETER_GRADIENT];
  if (g.empty()) return;
  if (sparseUpdate_ && !allRowsTouched_) {
    for (int r : touched_) std::fill(g.row(r), g.row(r) + cols_, 0.0f);
  } else {
    g.zero();
  }
  for (int r : touched_) rowMark_[r] = 0;
  touched_.clear();
  allRowsTouched_ = false;
}

Matrix& Parameter::buffer(ParameterType type) {
  auto it = bufs_.find(type);
  if (it != bufs_.end()) return it->second;
  Matrix& m = bufs_[type] = Matrix(rows_, cols_, useGpu_);
  m.zero();
  return m;
}

void Parameter::randomize(std::mt19937& rng) {
  double mean = config_.getDouble("initial_mean");
  double std = config_.getDouble("initial_std");
  int strategy = static_cast<int>(config_.getInt("initial_strategy"));
  std::vector<float> host(size_);
  if (strategy == 1) {
    std::uniform_real_distribution<double> d(mean - std, mean + std);
    for (auto& x : host) x = static_cast<float>(d(rng));
  } else if (std > 0) {
    std::normal_distribution<double> d(mean, std);
    for (auto& x : host) x = static_cast<float>(d(rng));
  } else {
    for (auto& x : host) x = static_cast<float>(mean);
  }
  value().copyFromHost(host.data(), rows_, cols_);
}

void Parameter::write(std::ostream& out, ParameterType type) const {
  auto it = bufs_.find(type);
  PADDLE_ENFORCE(it != bufs_.end(), IOError, "parameter '", name_, "' has no buffer ", type, " to save");
  std::vector<float> host(size_);
  it->second.copyToHost(host.data());
  FileHeader h{0, sizeof(float), size_};
  out.write(reinterpret_cast<const char*>(&h), sizeof(h));
  out.write(reinterpret_cast<const char*>(host.data()), size_ * sizeof(float));
}

void Parameter::save(const std::string& path, ParameterType type) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  PADDLE_ENFORCE(out.good(), IOError, "cannot write parameter file '", path, "'");
  write(out, type);
  out.flush();
  PADDLE_ENFORCE(out.good(), IOError, "failed writing parameter file '", path, "'");
}

void Parameter::read(std::istream& in, const std::string& what, ParameterType type) {
  FileHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof(h));
  PADDLE_ENFORCE(in.gcount() == sizeof(h), IOError, what, " is too short for a parameter header");
  PADDLE_ENFORCE(h.version == 0, IOError, what, ": unsupported format version ", h.version);
  PADDLE_ENFORCE(h.valueSize == sizeof(float), IOError, what, ": values are ", h.valueSize,
                 " bytes wide, this engine uses float32");
  PADDLE_ENFORCE(h.size == size_, IOError, what, " holds ", h.size, " values but parameter '", name_, "' has ",
                 size_);
  std::vector<float> host(size_);
  in.read(reinterpret_cast<char*>(host.data()), size_ * sizeof(float));
  PADDLE_ENFORCE(static_cast<size_t>(in.gcount()) == size_ * sizeof(float), IOError, what, " is truncated");
  buffer(type).copyFromHost(host.data(), rows_, cols_);
}

void Parameter::load(const std::string& path, ParameterType type) {
  std::ifstream in = openInputFile(path, "parameter file");
  read(in, "'" + path + "'", type);
  PADDLE_ENFORCE(in.peek() == std::char_traits<char>::eof(), IOError, "'", path,
                 "' has bytes after its values (not a parameter file of '", name_, "'?)");
}

}  // namespace paddle
