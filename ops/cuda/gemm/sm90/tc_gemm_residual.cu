// The sm90 tensor-core GEMM's launchers with residual steps in the TMA store epilogue, one
// per row of tc_gemm_variants.h (tc_gemm.cu's table points at them): a translation unit
// of their own so that they compile beside tc_gemm.cu's rows without residual steps.
#include "ops/cuda/gemm/sm90/tc_gemm_launch.cuh"

namespace tt::ops::cuda::gemm::sm90::detail {

TT_TC_GEMM_VARIANTS(TT_TC_RESIDUAL_INSTANCE)

}  // namespace tt::ops::cuda::gemm::sm90::detail
