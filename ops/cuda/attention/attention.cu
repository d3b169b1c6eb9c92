// tt::ops::cuda::scaled_dot_product_attention: the config for this problem, mode and
// device (attention_config.cpp), then the variant it names.
#include "core/cuda/device.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "ops/cuda/attention/attention.h"

namespace tt::ops::cuda {

void scaled_dot_product_attention(const AttentionProblem& p, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& mask, const Tensor& out) {
  attention::AttnLaunch a;
  a.q = static_cast<const float*>(q.data_ptr());
  a.k = static_cast<const float*>(k.data_ptr());
  a.v = static_cast<const float*>(v.data_ptr());
  a.mask = mask.defined() ? mask.data_ptr() : nullptr;
  a.out = static_cast<float*>(out.data_ptr());
  a.precision = current_precision();
  const int device = q.device().index;
  tt::cuda::DeviceGuard guard(device);
  const attention::AttnConfig c = attention::choose(p, a, device);
  cudaStream_t stream = tt::cuda::stream(device);
  if (c.impl == attention::Impl::kWgmma) {
    attention::launch_wgmma(c, p, a, stream);
  } else if (c.impl == attention::Impl::kMma) {
    attention::launch_mma(c, p, a, stream);
  } else if (c.impl == attention::Impl::kSimt2) {
    attention::launch_simt2(c, p, a, stream);
  } else if (c.impl == attention::Impl::kSimt) {
    attention::launch_simt(c, p, a, stream);
  } else {
    attention::launch_generic(c, p, a, stream);
  }
}

}  // namespace tt::ops::cuda

#if !(defined(TT_SM90_GEMM) && TT_SM90_GEMM)
namespace tt::ops::cuda::attention {
// Without sm_90a code the space never offers wgmma; a forced config says why.
void launch_wgmma(const AttnConfig&, const AttentionProblem&, const AttnLaunch&, cudaStream_t) {
  TT_FAIL("attention: impl=wgmma needs this build's sm_90a code, which it does not have");
}
}  // namespace tt::ops::cuda::attention
#endif
