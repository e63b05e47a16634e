// CUDA twins of the update rules: one generic element-wise kernel per rule.
#include <cuda_runtime.h>

#include "../layers/math/GpuRuntime.h"
#include "UpdateRules.h"

namespace paddle {
namespace gpu {

namespace {
template <typename F>
__global__ void applyKernel(F f, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) f(i);
}

template <typename F>
void launch(const F& f, size_t n) {
  if (n) applyKernel<<<static_cast<int>((n + 255) / 256), 256>>>(f, n);
}

__global__ void maxAbsKernel(const float* x, size_t n, float* out) {
  __shared__ float buf[256];
  float m = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    m = fmaxf(m, fabsf(x[i]));
  buf[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  // |x| >= 0, so the float bit patterns order like the values.
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<int*>(out), __float_as_int(buf[0]));
}
}  // namespace

void apply(const rule::Momentum& f, size_t n) { launch(f, n); }
void apply(const rule::AdaGrad& f, size_t n) { launch(f, n); }
void apply(const rule::AdaDelta& f, size_t n) { launch(f, n); }
void apply(const rule::RMSProp& f, size_t n) { launch(f, n); }
void apply(const rule::DecayedAdaGrad& f, size_t n) { launch(f, n); }
void apply(const rule::Adam& f, size_t n) { launch(f, n); }
void apply(const rule::Adamax& f, size_t n) { launch(f, n); }
void apply(const rule::Clip& f, size_t n) { launch(f, n); }
void apply(const rule::L1L2Decay& f, size_t n) { launch(f, n); }

float maxAbs(const float* x, size_t n) {
  float* d = static_cast<float*>(allocate(sizeof(float)));  // pooled: no cudaMalloc per batch
  cudaMemset(d, 0, sizeof(float));
  if (n) maxAbsKernel<<<256, 256>>>(x, n, d);
  float h = 0;
  cudaMemcpy(&h, d, sizeof(float), cudaMemcpyDeviceToHost);
  release(d);
  return h;
}

}  // namespace gpu
}  // namespace paddle
