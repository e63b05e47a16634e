// CRC-32C (Castagnoli), the checksum of each entry of a merged model: a damaged byte anywhere
// in a parameter or the config is refused at load instead of predicting with it. SSE4.2's
// crc32 instruction where the build targets it (about 10 GB/s), else the bitwise loop.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace paddle {

// The CRC-32C of `n` bytes at `data`, continuing `crc` (0 to start): crc32c(crc32c(0, a), b)
// is the checksum of a followed by b.
inline uint32_t crc32c(uint32_t crc, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
#if defined(__SSE4_2__)
  uint64_t wide = crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    wide = _mm_crc32_u64(wide, v);
  }
  crc = static_cast<uint32_t>(wide);
  for (; n > 0; --n) crc = _mm_crc32_u8(crc, *p++);
#else
  for (; n > 0; --n) {
    crc ^= *p++;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
#endif
  return ~crc;
}

}  // namespace paddle
