#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "engine/math/GpuOps.h"

namespace paddle {
namespace gpu {

namespace {
inline int blocks(size_t n, int threads = 256) { return static_cast<int>((n + threads - 1) / threads); }

__global__ void addRowVectorKernel(float* m, const float* row, int h, int w, float scale, float beta) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < static_cast<size_t>(h) * w) m[i] = (beta == 0.0f ? 0.0f : beta * m[i]) + scale * row[i % w];
}

// One thread per column walks down the rows: coalesced across the warp.
__global__ void sumRowsKernel(const float* m, float* out, int h, int w, float beta) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= w) return;
  float s = 0;
  for (int i = 0; i < h; ++i) s += m[static_cast<size_t>(i) * w + j];
  out[j] = beta * out[j] + s;
}

__global__ void axpbyKernel(float alpha, const float* x, float beta, float* y, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = beta == 0.0f ? alpha * x[i] : alpha * x[i] + beta * y[i];
}
__global__ void dotMulKernel(float* y, const float* x, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] *= x[i];
}
}  // namespace

void addRowVector(float* m, const float* row, int h, int w, float scale, float beta) {
  size_t n = static_cast<size_t>(h) * w;
  if (n) addRowVectorKernel<<<blocks(n), 256>>>(m, row, h, w, scale, beta);
}

void sumRows(const float* m, float* out, int h, int w, float beta) {
  if (w) sumRowsKernel<<<blocks(w), 256>>>(m, out, h, w, beta);
}

void axpby(float alpha, const float* x, float beta, float* y, size_t n) {
  if (n) axpbyKernel<<<blocks(n), 256>>>(alpha, x, beta, y, n);
}

void dotMul(float* y, const float* x, size_t n) {
  if (n) dotMulKernel<<<blocks(n), 256>>>(y, x, n);
}

}  // namespace gpu
}  // namespace paddle
