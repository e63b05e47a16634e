// What the norm layers share with the code that reasons about them (the Predictor's batch-norm
// folding, trainer/FoldBatchNorm.cpp).
#pragma once
#include <cstddef>

namespace paddle {

// batch_norm adds this to the variance before 1 / sqrt (v1's value).
constexpr float kBatchNormEpsilon = 1e-5f;

// One channel's row of a batch norm folded into its producer (scale and 1/std exactly 1), in
// testing: y = act((x - m) + add), act relu or none, over n values; y may be x (in place).
void foldedBatchNormRow(const float* x, float* y, size_t n, float m, float add, bool relu);

}  // namespace paddle
