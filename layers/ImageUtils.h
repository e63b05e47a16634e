// CPU helpers for image layers. An image row is channel-major: [C, H, W].
#pragma once
#include <cstddef>

#include "Json.h"

namespace paddle {
namespace image {

// im2col: col[(c*fh + ky)*fw + kx, oy*ow + ox] = img[c, oy*sy - py + ky, ox*sx - px + kx] (0 outside)
inline void im2col(const float* __restrict img, int C, int H, int W, int fh, int fw, int sy, int sx, int py,
                   int px, int oh, int ow, float* __restrict col) {
  const int N = oh * ow;
  for (int c = 0; c < C; ++c) {
    for (int ky = 0; ky < fh; ++ky) {
      for (int kx = 0; kx < fw; ++kx) {
        float* __restrict dst = col + static_cast<size_t>((c * fh + ky) * fw + kx) * N;
        for (int oy = 0; oy < oh; ++oy) {
          const int y = oy * sy - py + ky;
          float* __restrict d = dst + oy * ow;
          if (y < 0 || y >= H) {
            for (int ox = 0; ox < ow; ++ox) d[ox] = 0;
            continue;
          }
          const float* __restrict src = img + (static_cast<size_t>(c) * H + y) * W;
          for (int ox = 0; ox < ow; ++ox) {
            const int x = ox * sx - px + kx;
            d[ox] = (x >= 0 && x < W) ? src[x] : 0.0f;
          }
        }
      }
    }
  }
}

// The adjoint of im2col: img += scatter(col).
inline void col2im(const float* __restrict col, int C, int H, int W, int fh, int fw, int sy, int sx, int py,
                   int px, int oh, int ow, float* __restrict img) {
  const int N = oh * ow;
  for (int c = 0; c < C; ++c) {
    for (int ky = 0; ky < fh; ++ky) {
      for (int kx = 0; kx < fw; ++kx) {
        const float* __restrict src = col + static_cast<size_t>((c * fh + ky) * fw + kx) * N;
        for (int oy = 0; oy < oh; ++oy) {
          const int y = oy * sy - py + ky;
          if (y < 0 || y >= H) continue;
          float* __restrict d = img + (static_cast<size_t>(c) * H + y) * W;
          const float* __restrict s = src + oy * ow;
          for (int ox = 0; ox < ow; ++ox) {
            const int x = ox * sx - px + kx;
            if (x >= 0 && x < W) d[x] += s[ox];
          }
        }
      }
    }
  }
}

// v1's output-size rule: 1 + floor((2p + img - f) / s) in caffe mode, ceil otherwise.
inline int outputSize(int img, int filter, int padding, int stride, bool caffeMode) {
  int num = 2 * padding + img - filter;
  if (caffeMode || num <= 0) return 1 + (num >= 0 ? num / stride : -((-num + stride - 1) / stride));
  return 1 + (num + stride - 1) / stride;
}

// Reads an ImageConfig-like message (channels, img_size, img_size_y).
struct ImageShape {
  int channels = 0, height = 0, width = 0;
  size_t size() const { return static_cast<size_t>(channels) * height * width; }
};
inline ImageShape readImage(const Json& c) {
  ImageShape s;
  s.channels = static_cast<int>(c.getInt("channels", 0));
  s.width = static_cast<int>(c.getInt("img_size", 0));
  s.height = static_cast<int>(c.getInt("img_size_y", s.width));
  return s;
}

}  // namespace image
}  // namespace paddle
