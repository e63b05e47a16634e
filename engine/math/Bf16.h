// bfloat16 bits, on the CPU and the GPU alike: the one rounding rule of the engine's bf16 paths
// (the GEMM kernels' conversions, half-precision gradients between MPI ranks and GPUs): to the
// nearest, ties to even; a denormal becomes a signed zero, as VCVTNE2PS2BF16 does; a NaN stays
// a (quiet) NaN.
#pragma once
#include <cstdint>
#include <cstring>

#include "engine/math/HostDevice.h"

namespace paddle {

PD_HD inline uint16_t toBf16Bits(float x) {
#ifdef __CUDA_ARCH__
  uint32_t u = __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
#endif
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    u |= 0x00400000u;
  } else if ((u & 0x7f800000u) == 0) {
    u &= 0x80000000u;
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);
  }
  return static_cast<uint16_t>(u >> 16);
}
PD_HD inline float fromBf16Bits(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

}  // namespace paddle
