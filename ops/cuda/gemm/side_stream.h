// A second stream per device on which a fused op runs a memory-bound pass over one
// chunk of the GEMM output while the device's own stream (tt::cuda::stream) already
// computes the next chunk's GEMM: the GEMM is bound by arithmetic, the pass by memory,
// so they share the GPU well. fork() makes the side stream wait for everything queued
// on the main stream so far; join() makes the main stream wait for the side stream,
// so that after join() the op is ordered on the main stream as if it had used one
// stream (which the caching allocator's reuse of freed blocks relies on).
#pragma once

#include <cuda_runtime_api.h>

namespace tt::ops::cuda::gemm {

// The side stream's priority. The main stream has the default, lowest one; the GPU
// dispatches pending CTAs of a higher-priority stream first. A plan's tail split runs
// its head GEMM at kHighest and its tail GEMM at kSecond, both above the main stream
// that runs the passes (ops/cuda/fused/plan.cu says why).
enum class SidePriority { kDefault, kHighest, kSecond };

class SideStream {
 public:
  SideStream(int device, cudaStream_t main, SidePriority priority = SidePriority::kDefault);
  cudaStream_t side() const { return side_; }
  void fork();
  void join();

 private:
  cudaStream_t main_;
  cudaStream_t side_;
  cudaEvent_t forked_;
  cudaEvent_t joined_;
};

}  // namespace tt::ops::cuda::gemm
