// What the norm layers share with the code that reasons about them (the Predictor's batch-norm
// folding, trainer/FoldBatchNorm.cpp).
#pragma once

namespace paddle {

// batch_norm adds this to the variance before 1 / sqrt (v1's value).
constexpr float kBatchNormEpsilon = 1e-5f;

}  // namespace paddle
