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
    device = t.device().index;
  }
  if (device < 0) why = "it has no input";
  return device;
}

}  // namespace

#if TT_CUDA

std::unique_ptr<CapturedReplay> CapturedReplay::capture(const Program& program,
                                                        const std::vector<Tensor>& inputs,
                                                        std::string& why) {
  const int device = capture_device(inputs, why);
  if (device < 0) return nullptr;
  std::unique_ptr<CapturedReplay> r(new CapturedReplay());
  r->program_ = &program;
  r->device_ = device;
  if (!r->record(inputs, why)) return nullptr;
  return r;
}

bool CapturedReplay::record(const std::vector<Tensor>& inputs, std::string& why) {
  tt::cuda::DeviceGuard guard(device_);
  cudaStream_t stream = tt::cuda::stream(device_);
  // The last capture's blocks go back first (queued work still finishes before anything
  // reuses them: one stream); outputs a caller still holds stay theirs.
  outputs_.clear();
  memory_.clear();
  inputs_ = inputs;
  cudaGraph_t graph = nullptr;
  {
    StorageKeeper keeper;
    // Relaxed: the caching allocator may still ask the driver for a new block.
    TT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    try {
      outputs_ = run_program(*program_, inputs_);
    } catch (const std::exception& e) {
      why = fmt::format("a step failed under capture: {}", e.what());
    }
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (why.empty() && ended != cudaSuccess)
      why = fmt::format("the capture failed: {}", cudaGetErrorString(ended));
    memory_ = keeper.take();
  }
  cudaGetLastError();  // a refused call during capture leaves its error behind
  if (!why.empty()) {
    if (graph) cudaGraphDestroy(graph);
    return false;
  }
  // A new capture of the same steps updates the instantiated graph in place (its kernels'
  // arguments); anything else instantiates it anew.
  cudaGraphExecUpdateResultInfo info;
  if (exec_ &&
      cudaGraphExecUpdate(static_cast<cudaGraphExec_t>(exec_), graph, &info) != cudaSuccess) {
    cudaGetLastError();
    cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
    exec_ = nullptr;
  }
  cudaError_t made = cudaSuccess;
  if (!exec_) {
    cudaGraphExec_t exec = nullptr;
    made = cudaGraphInstantiate(&exec, graph, 0);
    exec_ = exec;
  }
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    cudaGetLastError();
    exec_ = nullptr;
    why = fmt::format("the graph could not be instantiated: {}", cudaGetErrorString(made));
    return false;
  }
  return true;
}

CapturedReplay::~CapturedReplay() {
  if (exec_) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
}

std::vector<Tensor> CapturedReplay::launch(const std::vector<Tensor>& inputs) {
  bool same = inputs.size() == inputs_.size();
  for (size_t i = 0; same && i < inputs.size(); ++i)
    same = inputs[i].defined() == inputs_[i].defined() &&
           (!inputs[i].defined() || inputs[i].data_ptr() == inputs_[i].data_ptr());
  if (!same) {
    std::string why;
    TT_CHECK(record(inputs, why), "compile: capturing the CUDA graph again failed: {}", why);
  }
  tt::cuda::DeviceGuard guard(device_);
  TT_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), tt::cuda::stream(device_)));
  return outputs_;
}

#else

std::unique_ptr<CapturedReplay> CapturedReplay::capture(const Program&,
                                                        const std::vector<Tensor>& inputs,
                                                        std::string& why) {
  if (capture_device(inputs, why) >= 0) why = "tensortune was built without CUDA";
  return nullptr;
}
bool CapturedReplay::record(const std::vector<Tensor>&, std::string& why) {
  why = "tensortune was built without CUDA";
  return false;
}
CapturedReplay::~CapturedReplay() = default;
std::vector<Tensor> CapturedReplay::launch(const std::vector<Tensor>&) { return outputs_; }

#endif

}  // namespace tt::graph
