#include "core/capture.h"

namespace tt::capture {
namespace {

thread_local Recorder* g_recorder = nullptr;
thread_local int g_depth = 0;         // OpScopes alive on this thread
thread_local bool g_factory = false;  // a FactoryScope is alive on this thread

}  // namespace

Recorder* active() { return g_depth == 0 ? g_recorder : nullptr; }

ScopedRecorder::ScopedRecorder(Recorder* r) : previous_(g_recorder), previous_depth_(g_depth) {
  g_recorder = r;
  g_depth = 0;
}

ScopedRecorder::~ScopedRecorder() {
  g_recorder = previous_;
  g_depth = previous_depth_;
}

OpScope::OpScope() : recorder_(active()) { ++g_depth; }
OpScope::~OpScope() { --g_depth; }

FactoryScope::FactoryScope() : previous_(g_factory) { g_factory = true; }
FactoryScope::~FactoryScope() { g_factory = previous_; }

void note_allocation(const Tensor& t) {
  if (g_factory) return;
  if (Recorder* r = active()) r->allocated(t);
}

void note_copy(const Tensor& t, const Tensor& out) {
  if (Recorder* r = active()) r->copy(t, out);
}

void note_unreplayable(const Tensor& t, const char* what) {
  if (Recorder* r = active()) r->unreplayable(t, what);
}

}  // namespace tt::capture
