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
  if (c.impl == attention::Impl::kMma) {
    attention::launch_mma(c, p, a, stream);
  } else if (c.impl == attention::Impl::kSimt) {
    attention::launch_simt(c, p, a, stream);
  } else {
    attention::launch_generic(c, p, a, stream);
  }
}

}  // namespace tt::ops::cuda
