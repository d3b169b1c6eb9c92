// A compiled key's replay captured as one CUDA graph (CompileOptions::cuda_graph): the
// host then enqueues one graph launch instead of every step's kernels, so a forward's
// latency is its GPU time. The graph reads its inputs from buffers of its own (each
// launch first copies the caller's inputs there, as PyTorch's CUDA graphs do) and
// writes the same output tensors at every launch: a launch overwrites what the previous
// one returned. Everything the capture allocated stays reserved for the graph's life.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/storage.h"
#include "core/tensor.h"

namespace tt::graph {

struct Program;

class CapturedReplay {
 public:
  // Captures a replay of `program` on the inputs' device. nullptr, with the reason in
  // `why`, when it cannot be captured (inputs on the CPU, on several devices or not
  // contiguous; a step the capture refuses, such as one that waits for the device).
  static std::unique_ptr<CapturedReplay> capture(const Program& program,
                                                 const std::vector<Tensor>& inputs,
                                                 std::string& why);
  ~CapturedReplay();
  CapturedReplay(const CapturedReplay&) = delete;
  CapturedReplay& operator=(const CapturedReplay&) = delete;

  // Copies `inputs` (the key's shapes, dtypes and strides) into the graph's input
  // buffers and launches it; returns the graph's outputs.
  std::vector<Tensor> launch(const std::vector<Tensor>& inputs);

 private:
  CapturedReplay() = default;
  void* exec_ = nullptr;  // cudaGraphExec_t
  int device_ = 0;
  std::vector<Tensor> inputs_, outputs_;
  std::vector<std::shared_ptr<Storage>> memory_;
};

}  // namespace tt::graph
