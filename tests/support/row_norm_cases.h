// The shapes the row norms' CUDA tests share (layer_norm in tests/cuda_norm_test.cpp,
// rms_norm in tests/cuda_reduce_test.cpp): one row, odd lengths, a length of 1, rows
// longer than a block and rows split over blocks, with and without the affine.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tt::test {

struct RowNormCase {
  Shape shape;
  int64_t len;  // the trailing elements normalised together
  bool affine;
};

inline std::vector<RowNormCase> row_norm_cases() {
  return {{{3, 7}, 7, true},     {{64, 512}, 512, true},  {{2, 3, 4}, 12, false},
          {{5, 1}, 1, true},     {{2, 8192}, 8192, true}, {{1, 3, 40000}, 40000, false},
          {{4, 6, 10}, 10, true}};
}

// A [6, 64] view with a row stride of 65 and a [64] weight at an address 4 bytes past
// 16-byte alignment, on the host (the tests move them): the strided, misaligned case.
struct StridedRowNorm {
  Tensor base = Tensor::randn({6, 65}, 65);
  Tensor wbase = Tensor::uniform({65}, 0.5, 1.5, 66);
  Tensor x() const { return base.narrow(1, 1, 64); }
  Tensor w() const { return wbase.narrow(0, 1, 64); }
};

}  // namespace tt::test
