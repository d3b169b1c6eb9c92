// The pointwise family's launch config and its parameter space (host code; the
// kernels are in pointwise.cuh), declared once as an autotune::Descriptor
// (autotune/descriptor.h) whose impl is the layout: the space, the config's text form
// and its conversions come from that table.
//
//   layout flat:    threads {128, 256, 512}, vec {1, 2, 4} (floats per load/store),
//                   items {1, 2, 4} (vectors per thread per grid step);
//                   constraint: vec within the operands' alignment.
//   layout strided: threads {128, 256, 512}, items {1, 2, 4}.
// Default: threads=256, items=1, vec = the widest the alignment allows (the
// pre-family launcher's choice: float4 maps at 256 threads).
// Problem keys: "numel=N,layout=flat,align=16B,precision=strict" and
// "numel=N,rank=R,layout=strided,precision=strict". The layout is fixed by the
// operands (never tuned), so a problem's space holds only its layout's impl.
#pragma once

#include <string>

#include "autotune/config.h"
#include "autotune/descriptor.h"
#include "autotune/space.h"
#include "ops/cuda/pointwise/pointwise_config.h"
#include "core/cuda/device.h"

namespace tt::ops::cuda::pointwise_tuning {

const autotune::Descriptor<PointwiseConfig>& descriptor();
std::string problem_key(const PointwiseProblem& p);
autotune::ParamSpace space(const std::string& kernel, const PointwiseProblem& p,
                           const tt::cuda::DeviceLimits& limits);

}  // namespace tt::ops::cuda::pointwise_tuning
