// The pointwise family's launch config and its parameter space (host code; the
// kernels are in pointwise.cuh). The family's fields, their candidates and which
// layout reads them are declared once, in kFields below; the space, the config's
// text form and its conversions come from that table.
//
//   layout flat:    threads {128, 256, 512}, vec {1, 2, 4} (floats per load/store),
//                   items {1, 2, 4} (vectors per thread per grid step);
//                   constraint: vec within the operands' alignment.
//   layout strided: threads {128, 256, 512}, items {1, 2, 4}.
// Default: threads=256, items=1, vec = the widest the alignment allows (the
// pre-family launcher's choice: float4 maps at 256 threads).
// Problem keys: "numel=N,layout=flat,align=16B,precision=strict" and
// "numel=N,rank=R,layout=strided,precision=strict".
// The autotune descriptor API (the `fam` helper's) had not landed when this was
// written, so the space is an autotune::ParamSpace built from the table by hand.
#pragma once

#include <cstdint>
#include <string>

#include "autotune/config.h"
#include "autotune/space.h"
#include "ops/cuda/tuning/device_limits.h"

namespace tt::ops::cuda::pointwise_tuning {

struct PointwiseProblem {
  bool flat = true;
  int64_t numel = 0;
  int rank = 1;   // strided: folded rank
  int align = 4;  // flat: floats every operand's pointer is aligned to (1, 2 or 4)
};

struct PointwiseConfig {
  int threads = 256;
  int vec = 1;    // flat only
  int items = 1;
};

std::string problem_key(const PointwiseProblem& p);
autotune::ParamSpace space(const std::string& kernel, const PointwiseProblem& p,
                           const tuning::DeviceLimits& limits);
autotune::Config to_config(const PointwiseConfig& c, bool flat);
// Throws tt::Error for a config without a field the layout needs.
PointwiseConfig from_config(const autotune::Config& c);

}  // namespace tt::ops::cuda::pointwise_tuning
