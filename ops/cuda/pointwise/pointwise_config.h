// The pointwise family's problem and launch config as plain structs, for the kernels
// (pointwise.cuh) and their run-time choice; their descriptor and
// space are in pointwise_space.h, kept out of nvcc's translation units.
#pragma once

#include <cstdint>
#include <string>

namespace tt::ops::cuda::pointwise_tuning {

struct PointwiseProblem {
  bool flat = true;
  int64_t numel = 0;
  int rank = 1;   // strided: folded rank
  int align = 4;  // flat: elements every operand's pointer is aligned to (1, 2 or 4)
  // The operands' element type when not float32 ("int64", "bool", ...; null for
  // float32, whose keys stay as they were).
  const char* dtype = nullptr;
};

enum class Layout { kFlat, kStrided };

struct PointwiseConfig {
  Layout layout = Layout::kFlat;  // impl: "flat" | "strided"
  int threads = 256;
  int vec = 1;  // flat only
  int items = 1;
};

// The config a launch of `kernel` ("pointwise.add") uses on `device` for problem p:
// the database's (autotune::choose, validated against the space), else the default.
PointwiseConfig choose(const std::string& kernel, const PointwiseProblem& p, int device);

}  // namespace tt::ops::cuda::pointwise_tuning
