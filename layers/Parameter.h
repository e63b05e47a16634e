// A trainable tensor: its value, its gradient and whatever per-parameter state
// the optimizer keeps (momentum, Adam moments ...), plus v1's ParameterConfig.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Json.h"
#include "math/Buffer.h"

namespace paddle {

// v1's ParameterType numbering (the SWIG API exposes these values).
enum ParameterType {
  PARAMETER_VALUE = 0,
  PARAMETER_GRADIENT = 1,
  PARAMETER_MOMENTUM = 2,
  PARAMETER_SUM1 = 3,
  PARAMETER_SUM2 = 4,
  PARAMETER_SUM3 = 5,
  PARAMETER_LEARNING_RATE = 6,
  PARAMETER_UPDATE_TIME = 7,
  PARAMETER_DELTA = 8,
  PARAMETER_GRADIENT_SUM = 9,
  PARAMETER_GRADIENT_SQURESUM = 10,
  PARAMETER_GRADIENT_SQURESUM1 = 11,
  PARAMETER_ROWS = 12,
  PARAMETER_COLS = 13,
  PARAMETER_SECOND_MOMENTUM = 14,
  PARAMETER_WEIGHTED_INFINITY_NORM = 15,
  PARAMETER_APPLY = 16,
  PARAMETER_MOMENTUM_UT = 17,
  PARAMETER_MOMENTUM_VT = 18,
  NUM_PARAMETER_TYPES = 19
};

class Parameter {
 public:
  Parameter(const Json& config, bool useGpu);

  const std::string& name() const { return name_; }
  size_t size() const { return size_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const Json& config() const { return config_; }
  bool isStatic() const { return isStatic_; }
  bool useGpu() const { return useGpu_; }

  // Per-parameter settings from ParameterConfig (v1 defaults when absent).
  double learningRate() const { return config_.getDouble("learning_rate", 1.0); }
  double momentum() const { return config_.getDouble("momentum", 0.0); }
  double decayRate() const { return config_.getDouble("decay_rate", 0.0); }
  double decayRateL1() const { return config_.getDouble("decay_rate_l1", 0.0); }
  double clippingThreshold() const { return config_.getDouble("gradient_clipping_threshold", 0.0); }

  // Value and gradient as [dims[0], dims[1]] (or [1, size] without 2-D dims).
  Matrix& value() { return bufs_[PARAMETER_VALUE]; }
  Matrix& grad() { return bufs_[PARAMETER_GRADIENT]; }
  // Any other buffer, created zeroed with the value's shape on first use.
  Matrix& buffer(ParameterType type);
  bool hasBuffer(ParameterType type) const { return bufs_.count(type) > 0; }

  // Normal(mean, std), or uniform in [mean-std, mean+std] when initial_strategy is 1.
  void randomize(std::mt19937& rng);
  void zeroGrad() { if (!grad().empty()) grad().zero(); }

  // v1 binary format: int32 version 0, uint32 value size 4, uint64 count, then
  // floats. Other buffers (optimizer state) use the same format.
  void save(const std::string& path, ParameterType type = PARAMETER_VALUE) const;
  void load(const std::string& path, ParameterType type = PARAMETER_VALUE);

 private:
  Json config_;
  std::string name_;
  size_t size_;
  std::vector<int64_t> dims_;
  bool isStatic_;
  bool useGpu_;
  size_t rows_, cols_;
  std::map<int, Matrix> bufs_;
};

using ParameterPtr = std::shared_ptr<Parameter>;

}  // namespace paddle
