// cuBLAS GEMM for MathOps (kept apart so the other kernels build without cuBLAS headers).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/math/GpuOps.h"
#include "engine/math/GpuRuntime.h"

namespace paddle {
namespace gpu {

namespace {
// A handle per host thread and device (trainer threads each drive their own stream). A thread
// hands its handles back when it ends, so the replica threads that a --trainer_count trainer
// starts each batch reuse handles instead of creating (and leaking) one each.
class HandleLease {
 public:
  cublasHandle_t get(int device) {
    for (auto& held : held_) {
      if (held.first == device) return held.second;
    }
    cublasHandle_t h = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu());
      std::vector<cublasHandle_t>& spare = spares()[device];
      if (!spare.empty()) {
        h = spare.back();
        spare.pop_back();
      }
    }
    if (!h && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetStream(h, cudaStreamPerThread);  // the calling thread's stream, as kernels use
    held_.emplace_back(device, h);
    return h;
  }
  ~HandleLease() {
    std::lock_guard<std::mutex> lock(mu());
    for (auto& held : held_) spares()[held.first].push_back(held.second);
  }

 private:
  static std::mutex& mu() {
    static auto* m = new std::mutex;  // never destroyed: threads may end during static teardown
    return *m;
  }
  static std::map<int, std::vector<cublasHandle_t>>& spares() {
    static auto* s = new std::map<int, std::vector<cublasHandle_t>>;
    return *s;
  }
  std::vector<std::pair<int, cublasHandle_t>> held_;
};

cublasHandle_t handle() {
  thread_local HandleLease lease;
  int device = 0;
  cudaGetDevice(&device);
  return lease.get(device);
}

template <typename Half>
__global__ void roundTo(const float* x, Half* y, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = static_cast<Half>(x[i]);  // round to nearest even
}

// Device scratch of this thread, per device, grown as needed: work queued on this thread's
// stream reuses it in order, so no call waits for the previous one. It goes back to the pool
// once the stream is done with it (on growth, and when the thread ends: replica threads come
// and go with each batch).
class Scratch {
 public:
  void* get(int which, size_t bytes) {
    int device = 0;
    cudaGetDevice(&device);
    auto& slot = held_[{device, which}];
    if (slot.second < bytes) {
      if (slot.first) {
        cudaStreamSynchronize(cudaStreamPerThread);
        release(slot.first);
      }
      slot = {allocate(bytes), bytes};
    }
    return slot.first;
  }
  ~Scratch() {
    if (held_.empty()) return;
    cudaStreamSynchronize(cudaStreamPerThread);
    for (auto& kv : held_) release(kv.second.first);
  }

 private:
  std::map<std::pair<int, int>, std::pair<void*, size_t>> held_;
};

void* scratch(int which, size_t bytes) {
  thread_local Scratch held;
  return held.get(which, bytes);
}

// The n values of x rounded to Half, in this thread's scratch `which`.
template <typename Half>
Half* rounded(const float* x, size_t n, int which) {
  Half* y = static_cast<Half*>(scratch(which, n * sizeof(Half)));
  roundTo<Half><<<static_cast<unsigned>((n + 255) / 256), 256, 0, cudaStreamPerThread>>>(x, y, n);
  return y;
}

// C = alpha op(A) op(B) + beta C with A and B rounded to Half, summed in fp32 (cublasGemmEx).
template <typename Half>
void halfGemm(cudaDataType type, const float* A, bool transA, const float* B, bool transB, float* C, int M, int N,
              int K, float alpha, float beta) {
  Half* a = rounded<Half>(A, static_cast<size_t>(M) * K, 0);
  Half* b = rounded<Half>(B, static_cast<size_t>(K) * N, 1);
  cublasStatus_t s = cublasGemmEx(handle(), transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  N, M, K, &alpha, b, type, transB ? K : N, a, type, transA ? M : K, &beta, C,
                                  CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed: " + std::to_string(s));
}
}  // namespace

// Row-major C[M,N] = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
void gemm(const float* A, bool transA, const float* B, bool transB, float* C, int M, int N, int K,
          float alpha, float beta, int precision) {
  if (precision == 1) return halfGemm<__nv_bfloat16>(CUDA_R_16BF, A, transA, B, transB, C, M, N, K, alpha, beta);
  if (precision == 2) return halfGemm<__half>(CUDA_R_16F, A, transA, B, transB, C, M, N, K, alpha, beta);
  int lda = transA ? M : K;
  int ldb = transB ? K : N;
  cublasStatus_t s = cublasSgemm(handle(), transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 transA ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, ldb, A,
                                 lda, &beta, C, N);
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSgemm failed: " + std::to_string(s));
}

}  // namespace gpu
}  // namespace paddle
