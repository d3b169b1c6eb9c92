// The capture interface of tt::compile (ops/graph/compile.h): while a Recorder is
// active on the calling thread, the op front end reports every op it runs (op kind,
// inputs, attributes, outputs) and core reports what a graph cannot replay (a value
// read on the host, a write in place, a copy to another device). The front end and core
// only call this interface, so neither includes the graph; the graph layer implements it.
//
// Only the outermost op is reported: an op that calls other ops (std = sqrt(var), the
// fused ops' CPU compositions) holds an OpScope, and ops inside it stay unreported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tt::capture {

// An op's attributes, positionally: the op kind says what each entry means
// (ops/graph/invoke.cpp reads them back when it replays the op).
struct Attrs {
  Attrs() = default;
  Attrs(std::vector<int64_t> i, std::vector<double> r = {}, std::string t = {})
      : ints(std::move(i)), reals(std::move(r)), text(std::move(t)) {}
  std::vector<int64_t> ints;
  std::vector<double> reals;
  std::string text;
  // Ops without a fusion rule may record how to run them again on new inputs instead
  // (kind ops::OpKind::kOther, `text` the op's name): one line per op.
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> replay;
};

class Recorder {
 public:
  virtual ~Recorder() = default;
  // An op ran: `kind` is an ops::OpKind (ops/op_kind.h), `sub` its pointwise op where it
  // has one. An optional operand that was not given is an undefined tensor in `inputs`.
  virtual void op(int kind, int sub, const std::vector<Tensor>& inputs, const Attrs& attrs,
                  const std::vector<Tensor>& outputs) = 0;
  // `t` was copied into the new tensor `out` (clone, contiguous, a dtype conversion).
  virtual void copy(const Tensor& t, const Tensor& out) = 0;
  // Something the graph cannot replay happened to `t` (a value read on the host, a
  // write in place), or to the forward itself when `t` is undefined (a draw from the
  // global generator): `what` is the sentence for the report.
  virtual void unreplayable(const Tensor& t, const std::string& what) = 0;
  // `t` was allocated outside every reported op and every factory: by an op that does
  // not report itself, or by Tensor::empty for the host to fill. Its values cannot be
  // replayed.
  virtual void allocated(const Tensor& t) = 0;
};

// The recorder of the calling thread, or nullptr when none is active or the caller is
// inside a reported op (OpScope).
Recorder* active();

// Makes `r` the calling thread's recorder for its lifetime (nests: the previous one
// comes back).
class ScopedRecorder {
 public:
  explicit ScopedRecorder(Recorder* r);
  ~ScopedRecorder();
  ScopedRecorder(const ScopedRecorder&) = delete;
  ScopedRecorder& operator=(const ScopedRecorder&) = delete;

 private:
  Recorder* previous_;
  int previous_depth_;
};

// Held by an op while it runs: active() is nullptr inside, so only the outermost op is
// reported. recorder() is the recorder to report to when this scope is the outermost.
class OpScope {
 public:
  OpScope();
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  Recorder* recorder() const { return recorder_; }

 private:
  Recorder* recorder_;
};

// Held by the factories (full, from_vector, uniform, randn, arange): what they make is a
// constant of the forward, not an unreported op's output.
class FactoryScope {
 public:
  FactoryScope();
  ~FactoryScope();
  FactoryScope(const FactoryScope&) = delete;
  FactoryScope& operator=(const FactoryScope&) = delete;

 private:
  bool previous_;
};

// core's reports (no-ops without an active recorder).
void note_copy(const Tensor& t, const Tensor& out);
// These sit on hot paths (every in-place op, every host read): the message is only made
// into a string while a recorder is active; a composed one is built by `make_what` then.
void note_unreplayable(const Tensor& t, const char* what);
template <typename MakeWhat>
void note_unreplayable_with(const Tensor& t, MakeWhat make_what) {
  if (Recorder* r = active()) r->unreplayable(t, make_what());
}
// Tensor::empty's: reports the allocation unless a factory or a reported op made it.
void note_allocation(const Tensor& t);

}  // namespace tt::capture
