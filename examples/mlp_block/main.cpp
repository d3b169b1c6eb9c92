// Runs the MLPBlock on random input on the CPU and, where there is a GPU, on CUDA,
// and prints both outputs and how far apart they are.
#include <iostream>

#include "mlp_block.h"
#if TT_CUDA && !__has_include(<tensortune/tensortune.h>)
#include "core/cuda/runtime.h"
#endif

int main() {
  tt::manual_seed(0);
  examples::MLPBlock block(64, 256);
  std::cout << block << "\n";
  const tt::Tensor x = tt::Tensor::randn({16, 64});
  const tt::Tensor cpu_out = block(x);
  std::cout << "cpu: " << cpu_out << "\n";
#if TT_CUDA  // TT_CUDA comes with the package: 1 when it was built with CUDA
  if (tt::cuda::is_available()) {
    block.to(tt::Device::cuda(0));
    const tt::Tensor gpu_out = block(x.to(tt::Device::cuda(0))).cpu();
    const double max_diff = tt::ops::amax(tt::ops::abs(gpu_out - cpu_out)).item<double>();
    std::cout << "cuda: " << gpu_out << "\nmax |cuda - cpu| = " << max_diff << "\n";
  }
#endif
  return 0;
}
