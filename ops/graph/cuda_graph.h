// A compiled key's replay captured as one CUDA graph (CompileOptions::cuda_graph): the
// host then enqueues one graph launch instead of every step's kernels, so a forward's
// latency is its GPU time. The graph reads the caller's input tensors where they are (it
// holds them): a call with the same tensors launches it as it is; a call with other
// ones captures the steps again and updates the graph's kernel arguments in place
// (cudaGraphExecUpdate) instead of copying inputs, which would cost a large input's
// bandwidth at every call. It writes the same output tensors at every launch: a launch
// overwrites what the previous one returned. What a capture allocated stays reserved
// until the next capture.
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

  // Launches the graph on `inputs` (the key's shapes, dtypes and strides), captured
  // again first when they are other tensors than last time; returns its outputs.
  std::vector<Tensor> launch(const std::vector<Tensor>& inputs);

 private:
  CapturedReplay() = default;
  bool record(const std::vector<Tensor>& inputs, std::string& why);
  const Program* program_ = nullptr;
  void* exec_ = nullptr;  // cudaGraphExec_t
  int device_ = 0;
  std::vector<Tensor> inputs_, outputs_;
  std::vector<std::shared_ptr<Storage>> memory_;
};

}  // namespace tt::graph
