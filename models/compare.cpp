#include "models/compare.h"

#include <cmath>
#include <limits>
#include <memory>

#include "models/fixture_check.h"
#include "ops/ops.h"

namespace tt::models {
namespace {

// A second handle to t's current storage and view: set_data() on t (which rebinds
// every handle sharing t's impl) leaves this one as it was.
Tensor alias_of(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = t.storage();
  impl->sizes = t.sizes();
  impl->strides = t.strides();
  impl->offset = t.offset();
  impl->dtype = t.dtype();
  return Tensor(impl);
}

// Converts every floating parameter and buffer of a model to float64 and restores
// the originals when it leaves scope.
class Float64State {
 public:
  explicit Float64State(Module& model) {
    for (const NamedTensors& group : {model.named_parameters(), model.named_buffers()}) {
      for (const auto& [name, t] : group) {
        if (t.dtype() != DType::F32) continue;
        handles_.push_back(t);
        originals_.push_back(alias_of(t));
        Tensor handle = t;
        handle.set_data(t.to(DType::F64));
      }
    }
  }
  ~Float64State() {
    for (size_t i = 0; i < handles_.size(); ++i) handles_[i].set_data(originals_[i]);
  }
  Float64State(const Float64State&) = delete;
  Float64State& operator=(const Float64State&) = delete;

 private:
  std::vector<Tensor> handles_;    // share the model's impls
  std::vector<Tensor> originals_;  // the float32 tensors to put back
};

}  // namespace

Float64Forward forward_float64(Module& model, const std::vector<Tensor>& inputs) {
  TT_CHECK(model.device().is_cpu(),
           "forward_float64: {} is on {}, but the float64 reference runs on the CPU; build a CPU "
           "copy of the model",
           model.name(), model.device().str());
  std::vector<Tensor> wide;
  for (const Tensor& t : inputs) {
    const Tensor cpu = t.cpu();
    wide.push_back(cpu.dtype() == DType::F32 ? cpu.to(DType::F64) : cpu);
  }
  Float64Forward result;
  Float64State state(model);
  ops::Float64Scope scope;
  result.outputs = model.forward(wide);
  for (const auto& [name, t] : model.named_buffers())
    result.buffers.emplace_back(name, alias_of(t));
  return result;
}

ErrorVsReference error_against(const Tensor& out, const Tensor& ref) {
  ErrorVsReference e;
  e.rel_l2 = relative_l2_error(out, ref);
  const std::vector<double> a = out.cpu().to(DType::F64).contiguous().to_vector<double>();
  const std::vector<double> b = ref.cpu().to(DType::F64).contiguous().to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(a[i] - b[i]);
    if (std::isnan(d)) return {e.rel_l2, std::numeric_limits<double>::infinity()};
    e.max_abs = std::max(e.max_abs, d);
  }
  return e;
}

}  // namespace tt::models
