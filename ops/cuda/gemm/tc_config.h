// The one conversion between the GEMM family's tc config (GemmConfig with impl=tc) and
// the sm90 family's own (sm90::TcConfig): every TcConfig field has its GemmConfig field
// here and nowhere else. Apart from gemm_config.h so that the family's other kernels do
// not depend on the sm90 header.
#pragma once

#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"

namespace tt::ops::cuda::gemm {

sm90::TcConfig to_tc_config(const GemmConfig& c);
GemmConfig from_tc_config(const sm90::TcConfig& t);

}  // namespace tt::ops::cuda::gemm
