// cuBLAS GEMM for MathOps (kept apart so the other kernels build without cuBLAS headers).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "GpuOps.h"

namespace paddle {
namespace gpu {

namespace {
// One handle per host thread (trainer threads each drive their own stream).
cublasHandle_t handle() {
  thread_local cublasHandle_t h = [] {
    cublasHandle_t created;
    if (cublasCreate(&created) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetStream(created, cudaStreamPerThread);  // the calling thread's stream, as kernels use
    return created;
  }();
  return h;
}

}  // namespace

// Row-major C[M,N] = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
void gemm(const float* A, bool transA, const float* B, bool transB, float* C, int M, int N, int K,
          float alpha, float beta) {
  int lda = transA ? M : K;
  int ldb = transB ? K : N;
  cublasStatus_t s = cublasSgemm(handle(), transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 transA ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A,
                                 lda, &beta, C, N);
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSgemm failed: " + std::to_string(s));
}

}  // namespace gpu
}  // namespace paddle
