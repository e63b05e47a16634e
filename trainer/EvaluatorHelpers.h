// What the evaluator families (trainer/*Evaluators.cpp) share: layer outputs on the host,
// label ids, the predicted class of a row, the --predict_file writer.
#pragma once
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "engine/Errors.h"
#include "trainer/Evaluator.h"

namespace paddle {

// A layer output copied to host memory, so evaluators run the same on any device.
// (host matrices are read in place; GPU ones are copied)
struct HostMatrix {
  std::vector<float> copy;
  const float* data = nullptr;
  size_t rows = 0, cols = 0;
  explicit HostMatrix(const Matrix& m) : rows(m.height()), cols(m.width()) {
    if (m.useGpu()) {
      copy.resize(m.size());
      m.copyToHost(copy.data());
      data = copy.data();
    } else {
      data = m.data();
    }
  }
  const float* row(size_t i) const { return data + i * cols; }
};

// v1 --predict_file: the samples a validation layer saw in a pass, one per line (rewritten each pass).
inline std::ofstream openSamplesFile(const std::string& path, const std::string& who) {
  std::ofstream out(path, std::ios::trunc);
  PADDLE_ENFORCE(out.good(), IOError, "evaluator '", who, "': cannot write the predict file '", path, "'");
  return out;
}

inline std::vector<int> hostIds(const Argument& a, size_t rows, const std::string& who) {
  PADDLE_ENFORCE(a.ids.size() == rows, DataError, "evaluator '", who, "': ", a.ids.size(),
                 " labels for ", rows, " predictions");
  std::vector<int> ids(rows);
  a.ids.copyToHost(ids.data());
  return ids;
}

// Predicted class of a row: argmax, or threshold on a single column.
inline int predictedClass(const float* x, size_t w, float threshold) {
  if (w == 1) return x[0] > threshold ? 1 : 0;
  return static_cast<int>(std::max_element(x, x + w) - x);
}

}  // namespace paddle
