#include "ops/graph/cuda_graph.h"

#include "core/error.h"
#include "ops/graph/program.h"
#if TT_CUDA
#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#endif

namespace tt::graph {
namespace {

// The one CUDA device all defined inputs are on, or -1 with the reason in `why`.
int capture_device(const std::vector<Tensor>& inputs, std::string& why) {
  int device = -1;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (!t.device().is_cuda() || (device >= 0 && t.device().index != device)) {
      why = t.device().is_cuda() ? "its inputs are on several CUDA devices"
                                 : "an input is on the CPU";
      return -1;
    }
    if (!t.is_contiguous()) {
      why = "an input is not contiguous";
      return -1;
    }
    device = t.device().index;
  }
  if (device < 0) why = "it has no input";
  return device;
}

}  // namespace

#if TT_CUDA
namespace {

void copy_input(const Tensor& into, const Tensor& from, cudaStream_t stream) {
  if (!from.defined() || into.data_ptr() == from.data_ptr()) return;
  TT_CUDA_CHECK(cudaMemcpyAsync(into.data_ptr(), from.data_ptr(),
                                static_cast<size_t>(from.numel()) * dtype_size(from.dtype()),
                                cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

std::unique_ptr<CapturedReplay> CapturedReplay::capture(const Program& program,
                                                        const std::vector<Tensor>& inputs,
                                                        std::string& why) {
  const int device = capture_device(inputs, why);
  if (device < 0) return nullptr;
  std::unique_ptr<CapturedReplay> r(new CapturedReplay());
  r->device_ = device;
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t stream = tt::cuda::stream(device);
  for (const Tensor& t : inputs) {
    r->inputs_.push_back(t.defined() ? Tensor::empty(t.sizes(), t.dtype(), t.device()) : Tensor());
    copy_input(r->inputs_.back(), t, stream);
  }
  cudaGraph_t graph = nullptr;
  {
    StorageKeeper keeper;
    // Relaxed: the caching allocator may still ask the driver for a new block.
    TT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    try {
      r->outputs_ = run_program(program, r->inputs_);
    } catch (const std::exception& e) {
      why = fmt::format("a step failed under capture: {}", e.what());
    }
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (why.empty() && ended != cudaSuccess)
      why = fmt::format("the capture failed: {}", cudaGetErrorString(ended));
    r->memory_ = keeper.take();
  }
  cudaGetLastError();  // a refused call during capture leaves its error behind
  if (!why.empty()) {
    if (graph) cudaGraphDestroy(graph);
    return nullptr;
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    cudaGetLastError();
    why = fmt::format("the graph could not be instantiated: {}", cudaGetErrorString(made));
    return nullptr;
  }
  r->exec_ = exec;
  return r;
}

CapturedReplay::~CapturedReplay() {
  if (exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
}

std::vector<Tensor> CapturedReplay::launch(const std::vector<Tensor>& inputs) {
  tt::cuda::DeviceGuard guard(device_);
  cudaStream_t stream = tt::cuda::stream(device_);
  for (size_t i = 0; i < inputs_.size(); ++i) copy_input(inputs_[i], inputs.at(i), stream);
  TT_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), stream));
  return outputs_;
}

#else

std::unique_ptr<CapturedReplay> CapturedReplay::capture(const Program&,
                                                        const std::vector<Tensor>& inputs,
                                                        std::string& why) {
  if (capture_device(inputs, why) >= 0) why = "tensortune was built without CUDA";
  return nullptr;
}
CapturedReplay::~CapturedReplay() = default;
std::vector<Tensor> CapturedReplay::launch(const std::vector<Tensor>&) { return outputs_; }

#endif

}  // namespace tt::graph
