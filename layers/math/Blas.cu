// cuBLAS GEMM for MathOps (kept apart so the other kernels build without cuBLAS headers).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "GpuOps.h"

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
