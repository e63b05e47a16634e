// Runs DGC's local step (trainer/Dgc.h) for tests/engine/test_dgc.py: reads n, steps, momentum,
// sparsity and then steps x n float32 gradients from the binary file argv[1]; writes to argv[2],
// per step, the count k of pairs sent, k (int32 index, float32 value) pairs, then u and v.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "trainer/Dgc.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* in = std::fopen(argv[1], "rb");
  FILE* out = std::fopen(argv[2], "wb");
  if (!in || !out) return 3;
  int64_t n = 0, steps = 0;
  double momentum = 0, sparsity = 0;
  if (std::fread(&n, sizeof(n), 1, in) != 1 || std::fread(&steps, sizeof(steps), 1, in) != 1 ||
      std::fread(&momentum, sizeof(momentum), 1, in) != 1 || std::fread(&sparsity, sizeof(sparsity), 1, in) != 1)
    return 4;
  paddle::DgcAccumulator dgc;
  dgc.reset(static_cast<size_t>(n));
  std::vector<float> grad(n);
  std::vector<int32_t> pairs;
  for (int64_t s = 0; s < steps; ++s) {
    if (std::fread(grad.data(), sizeof(float), n, in) != static_cast<size_t>(n)) return 5;
    dgc.step(grad.data(), static_cast<float>(momentum), sparsity, pairs);
    const int64_t k = static_cast<int64_t>(pairs.size() / 2);
    std::fwrite(&k, sizeof(k), 1, out);
    std::fwrite(pairs.data(), sizeof(int32_t), pairs.size(), out);
    std::fwrite(dgc.momentum().data(), sizeof(float), n, out);
    std::fwrite(dgc.accumulated().data(), sizeof(float), n, out);
  }
  std::fclose(out);
  return 0;
}
