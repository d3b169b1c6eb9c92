// Per-device side streams and their two events, created on first use and kept for the
// life of the process (as the main streams are).
#include "ops/cuda/gemm/side_stream.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"

namespace tt::ops::cuda::gemm {
namespace {

struct SideState {
  cudaStream_t stream = nullptr;
  cudaEvent_t forked = nullptr;
  cudaEvent_t joined = nullptr;
};

const SideState& side_state(int device, SidePriority priority) {
  tt::cuda::check_device(device);
  static std::mutex mutex;
  // Per device, one state per SidePriority.
  constexpr int kLevels = 3;
  static auto* states = new std::vector<SideState>(kLevels * tt::cuda::device_count());
  std::lock_guard<std::mutex> lock(mutex);
  SideState& s = (*states)[kLevels * device + static_cast<int>(priority)];
  if (s.stream == nullptr) {
    tt::cuda::DeviceGuard guard(device);
    int least = 0, greatest = 0;  // numerically: greatest <= least
    TT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const int level = priority == SidePriority::kHighest  ? greatest
                      : priority == SidePriority::kSecond ? std::min(greatest + 1, least)
                                                          : least;
    TT_CUDA_CHECK(cudaStreamCreateWithPriority(&s.stream, cudaStreamNonBlocking, level));
    // An event may be recorded again once a wait on it has been queued: a wait uses
    // the record that precedes it, so two events serve every fork and join in order.
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&s.forked, cudaEventDisableTiming));
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&s.joined, cudaEventDisableTiming));
  }
  return s;
}

}  // namespace

SideStream::SideStream(int device, cudaStream_t main, SidePriority priority) : main_(main) {
  const SideState& s = side_state(device, priority);
  side_ = s.stream;
  forked_ = s.forked;
  joined_ = s.joined;
}

void SideStream::fork() {
  TT_CUDA_CHECK(cudaEventRecord(forked_, main_));
  TT_CUDA_CHECK(cudaStreamWaitEvent(side_, forked_, 0));
}

void SideStream::join() {
  TT_CUDA_CHECK(cudaEventRecord(joined_, side_));
  TT_CUDA_CHECK(cudaStreamWaitEvent(main_, joined_, 0));
}

}  // namespace tt::ops::cuda::gemm
