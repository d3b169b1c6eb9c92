#include "ops/graph/compile.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "core/precision.h"
#include "ops/graph/cuda_graph.h"
#include "ops/graph/fusion.h"
#include "ops/graph/program.h"
#include "ops/graph/recorder.h"

namespace tt {

CompiledModule::CompiledModule(std::shared_ptr<Module> module, CompileOptions options)
    : module_(std::move(module)), options_(options) {
  TT_CHECK(module_ != nullptr, "compile: the module is null");
  TT_CHECK(options_.cache_size > 0, "compile: cache_size must be at least 1");
  register_module("_orig_mod", module_);
  train(module_->is_training());
}

CompiledModule::~CompiledModule() = default;

std::string CompiledModule::key_of(const std::vector<Tensor>& inputs) const {
  // The mode the module's forward runs in: its own when set, else the caller's.
  const Precision mode = module_->precision().value_or(current_precision());
  std::string key =
      fmt::format("{}|{}|", precision_name(mode), module_->is_training() ? "train" : "eval");
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      key += "undefined;";
      continue;
    }
    key += fmt::format("{}{}{}@{};", dtype_name(t.dtype()), shape_str(t.sizes()),
                       shape_str(t.strides()), t.device().str());
  }
  return key;
}

std::string CompiledModule::explain() const { return last_ ? last_->report : std::string(); }

std::vector<Tensor> CompiledModule::forward(const std::vector<Tensor>& inputs) {
  const std::string key = key_of(inputs);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->key != key) continue;
    cache_.splice(cache_.begin(), cache_, it);  // most recently used first
    last_ = it->program;
    if (last_->eager()) return (*module_)(inputs);
    const PrecisionGuard mode(module_->precision().value_or(current_precision()));
    return replay(*it, inputs);
  }

  // A new key: run the module eagerly while recording, then compile the graph.
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> outputs;
  auto program = std::make_shared<graph::Program>();
  {
    graph::GraphRecorder recorder(*module_, inputs);
    {
      const capture::ScopedRecorder scope(&recorder);
      outputs = (*module_)(inputs);
    }
    program->graph = recorder.finish(outputs);
  }
  ++recordings_;
  {
    const PrecisionGuard mode(module_->precision().value_or(current_precision()));
    graph::compile_program(*program, options_.fuse);
  }
  last_compile_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (options_.explain) std::cout << program->report << std::flush;
  Entry entry;
  entry.key = key;
  entry.program = program;
  cache_.push_front(std::move(entry));
  if (cache_.size() > options_.cache_size) cache_.pop_back();
  last_ = program;
  return outputs;
}

std::vector<Tensor> CompiledModule::replay(Entry& entry, const std::vector<Tensor>& inputs) {
  if (options_.cuda_graph && !entry.not_capturable) {
    if (entry.captured) return entry.captured->launch(inputs);
    // The first replay runs plainly: lazy set-up (handles, workspaces, kernel attributes)
    // happens there, outside the capture.
    if (entry.replays++ >= 1) {
      std::string why;
      entry.captured = graph::CapturedReplay::capture(*entry.program, inputs, why);
      if (entry.captured) {
        entry.program->report += "replay: one CUDA graph\n";
        return entry.captured->launch(inputs);
      }
      entry.not_capturable = true;
      entry.program->report += fmt::format("replay: not a CUDA graph: {}\n", why);
    }
  }
  return graph::run_program(*entry.program, inputs);
}

std::shared_ptr<CompiledModule> compile(std::shared_ptr<Module> module, CompileOptions options) {
  return std::make_shared<CompiledModule>(std::move(module), options);
}

std::shared_ptr<CompiledModule> compile_recorded(std::shared_ptr<Module> module,
                                                 const std::vector<Tensor>& inputs,
                                                 CompileOptions options) {
  std::vector<Tensor> saved;
  for (const auto& [name, b] : module->named_buffers()) saved.push_back(b.clone());
  auto compiled = compile(module, options);
  compiled->forward(inputs);
  size_t i = 0;
  for (auto& [name, b] : module->named_buffers()) b.copy_(saved.at(i++));
  return compiled;
}

}  // namespace tt
