#include <cfloat>

#include "engine/ActivationFunctors.h"
#include "engine/math/GpuOps.h"

namespace paddle {
namespace gpu {

namespace {
inline int blocks(size_t n) { return static_cast<int>((n + 255) / 256); }

template <typename F>
__global__ void forwardKernel(F f, float* v, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) v[i] = f.fwd(v[i]);
}

template <typename F>
__global__ void backwardKernel(F f, const float* y, const float* x, float* g, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) g[i] *= f.bwd(y[i], F::kNeedsInput ? x[i] : 0.0f);
}

// One block per row; shared-memory reductions for the max and the sum.
__global__ void softmaxKernel(float* v, int w) {
  extern __shared__ float buf[];
  float* x = v + static_cast<size_t>(blockIdx.x) * w;
  float m = -FLT_MAX;
  for (int j = threadIdx.x; j < w; j += blockDim.x) m = fmaxf(m, x[j]);
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  m = buf[0];
  __syncthreads();
  float sum = 0;
  for (int j = threadIdx.x; j < w; j += blockDim.x) sum += (x[j] = expf(x[j] - m));
  buf[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  float inv = 1.0f / buf[0];
  for (int j = threadIdx.x; j < w; j += blockDim.x) x[j] *= inv;
}

__global__ void softmaxBackwardKernel(const float* y, float* g, int w) {
  extern __shared__ float buf[];
  const float* yr = y + static_cast<size_t>(blockIdx.x) * w;
  float* gr = g + static_cast<size_t>(blockIdx.x) * w;
  float dot = 0;
  for (int j = threadIdx.x; j < w; j += blockDim.x) dot += gr[j] * yr[j];
  buf[threadIdx.x] = dot;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  dot = buf[0];
  for (int j = threadIdx.x; j < w; j += blockDim.x) gr[j] = yr[j] * (gr[j] - dot);
}
}  // namespace

void activationForward(int kind, float* v, size_t n) {
  if (!n) return;
  act::visit(static_cast<act::Kind>(kind), [&](auto f) { forwardKernel<<<blocks(n), 256>>>(f, v, n); });
}

void activationBackward(int kind, const float* y, const float* x, float* g, size_t n) {
  if (!n) return;
  act::visit(static_cast<act::Kind>(kind),
             [&](auto f) { backwardKernel<<<blocks(n), 256>>>(f, y, x, g, n); });
}

void softmaxForward(float* v, int h, int w) {
  if (h && w) softmaxKernel<<<h, 256, 256 * sizeof(float)>>>(v, w);
}

void softmaxBackward(const float* y, float* g, int h, int w) {
  if (h && w) softmaxBackwardKernel<<<h, 256, 256 * sizeof(float)>>>(y, g, w);
}

}  // namespace gpu
}  // namespace paddle
