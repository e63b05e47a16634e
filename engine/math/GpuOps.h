// CUDA kernels behind MathOps and the layers, on raw device pointers.
// Defined in the .cu files; only called in builds WITH_CUDA.
#pragma once
#include <cstddef>

namespace paddle {
namespace gpu {

// precision: a math::Precision (0 fp32, 1 bf16, 2 fp16: the operands rounded to that type,
// the products summed in fp32)
void gemm(const float* A, bool transA, const float* B, bool transB, float* C,
          int M, int N, int K, float alpha, float beta, int precision = 0);
void addRowVector(float* m, const float* row, int h, int w, float scale, float beta);
void sumRows(const float* m, float* out, int h, int w, float beta);
void axpby(float alpha, const float* x, float beta, float* y, size_t n);
void dotMul(float* y, const float* x, size_t n);

}  // namespace gpu
}  // namespace paddle

namespace paddle {
namespace gpu {

// Activation.cu: `kind` is an act::Kind; x may be null when the kind does not read it.
void activationForward(int kind, float* v, size_t n);
void activationBackward(int kind, const float* y, const float* x, float* g, size_t n);
void softmaxForward(float* v, int h, int w);
void softmaxBackward(const float* y, float* g, int h, int w);

}  // namespace gpu
}  // namespace paddle
