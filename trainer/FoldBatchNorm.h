// Inference-only batch-norm folding for a Predictor: where a conv or fc layer's output is read
// by nothing but one batch_norm layer normalising with its moving mean and variance, the
// per-channel scale w0 / sqrt(var + eps) moves into that layer's weights (and bias), and the
// batch norm is left adding one shift per channel (its scale and 1/std exactly 1). Only the
// Predictor's own copies of those parameters change; the loaded model, a saved file and
// training never see them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "trainer/GradientMachine.h"

namespace paddle {

// Whether a Predictor folds: yes unless PADDLE_FOLD_BN=0 (or off) when it is created.
bool batchNormFoldingEnabled();
// Whether a Predictor's machines move each folded batch norm's remaining shift (and relu) into
// the conv it reads (layers/InferenceFusion.h): yes unless PADDLE_FUSE_BN=0 (or off) when it is
// created.
bool batchNormFusionEnabled();

// The values a Predictor's machines should read, one per gm.parameters() entry: gm's own
// matrix (aliased) where nothing folds, a folded copy where something does. `folded` gets
// the names of the batch_norm layers folded. CPU machines only (a GPU one gets gm's own).
std::vector<Matrix> foldBatchNormForInference(const GradientMachine& gm, std::vector<std::string>* folded);

// The two-input addto layers that a folded batch norm's conv can finish (layers/InferenceFusion.h),
// with the input k that is that batch norm: read by nothing but the addto (no output of the model),
// its conv run after the other input.
std::vector<std::pair<std::string, size_t>> residualSumsOnFolded(const Json& config,
                                                                 const std::vector<std::string>& folded);

}  // namespace paddle
