// The engine's bf16 GEMM (math::gemm under a bf16 precision scope: fp32 operands rounded while
// packed) against MKL's cblas_gemm_bf16bf16f32 (bf16 operands, fp32 result), one thread, on the
// products of the bf16 benchmarks. Built and run by benchmarks/bf16_gemm_mkl.py.
#include <chrono>
#include <cstdio>
#include <cmath>
#include <random>
#include <vector>
#include <mkl.h>
#include "engine/math/MathOps.h"
#include "engine/math/Bf16.h"
using namespace paddle;
using namespace paddle::math;
template <class F>
double timeit(F f, int reps) {
  f();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}
// MKL takes bf16 operands: our layers hold fp32, so a caller would round them first
void toBf16(const float* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = toBf16Bits(x[i]);
}
void run(const char* name, size_t M, size_t N, size_t K, bool tA, bool tB, int reps) {
  Matrix A(tA ? K : M, tA ? M : K, false), B(tB ? N : K, tB ? K : N, false), C(M, N, false), C2(M, N, false);
  std::mt19937 r(1); std::uniform_real_distribution<float> d(-1, 1);
  for (size_t i = 0; i < A.size(); ++i) A.data()[i] = d(r);
  for (size_t i = 0; i < B.size(); ++i) B.data()[i] = d(r);
  std::vector<uint16_t> a16(A.size()), b16(B.size());
  double ours, mkl, conv;
  {
    GemmPrecisionScope s(Precision::kBf16);
    ours = timeit([&] { gemm(A, tA, B, tB, C, 1.0f, 0.0f); }, reps);
  }
  conv = timeit([&] { toBf16(A.data(), a16.data(), A.size()); toBf16(B.data(), b16.data(), B.size()); }, reps);
  mkl = timeit([&] {
    cblas_gemm_bf16bf16f32(CblasRowMajor, tA ? CblasTrans : CblasNoTrans, tB ? CblasTrans : CblasNoTrans, M, N, K, 1.0f,
                           (const MKL_BF16*)a16.data(), A.width(), (const MKL_BF16*)b16.data(), B.width(), 0.0f, C2.data(), N);
  }, reps);
  double maxd = 0;
  for (size_t i = 0; i < C.size(); ++i) maxd = std::max(maxd, (double)std::fabs(C.data()[i] - C2.data()[i]));
  const double gmac = double(M) * N * K / 1e9;
  printf("| %s | %zux%zux%zu%s%s | %.1f | %.1f | %.1f | %.2f | %.1e |\n", name, M, N, K, tA ? " A^T" : "", tB ? " B^T" : "",
         gmac / ours, gmac / mkl, gmac / (mkl + conv), ours / mkl, maxd);
}
int main() {
  printf("| product | M x N x K | ours GMAC/s | MKL GMAC/s (bf16 inputs) | MKL + fp32->bf16 conversion | ours/MKL time | max |diff| |\n|---|---|---|---|---|---|---|\n");
  const size_t T = 6720;
  run("lstm_text input projection", T, 512, 128, false, false, 20);
  run("lstm_text its input gradient", T, 128, 512, false, true, 20);
  run("lstm_text weight gradients", 128, 512, T, true, false, 20);
  run("lstm_text recurrent step", 32, 512, 128, false, false, 2000);
  run("LeNet conv2 forward (4 samples)", 50, 256, 500, false, false, 300);
  run("LeNet conv2 weight gradient", 50, 500, 256, false, true, 300);
  run("LeNet conv2 input gradient", 500, 256, 50, true, false, 300);
  run("mlp fc 784->512 forward", 64, 512, 784, false, false, 300);
  run("mlp fc 512->512 weight gradient", 512, 512, 64, true, false, 300);
  char version[256];
  mkl_get_version_string(version, sizeof version);
  printf("\n%s\n", version);
}
