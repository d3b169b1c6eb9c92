#include "models/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

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

namespace {

// Element i of a contiguous CPU float32 or float64 tensor, as double.
struct Reader {
  explicit Reader(const Tensor& t)
      : f32(t.dtype() == DType::F32 ? t.data<float>() : nullptr),
        f64(f32 ? nullptr : t.data<double>()) {}
  double operator[](int64_t i) const { return f32 ? static_cast<double>(f32[i]) : f64[i]; }
  const float* f32;
  const double* f64;
};

}  // namespace

ErrorVsReference error_against(const Tensor& out, const Tensor& ref) {
  TT_CHECK(out.sizes() == ref.sizes(), "error_against: output has shape {} but reference has {}",
           shape_str(out.sizes()), shape_str(ref.sizes()));
  // One pass over the data where it lies (no double copies: a full-shape model output
  // has billions of elements).
  const Tensor a = out.cpu().contiguous(), b = ref.cpu().contiguous();
  for (const Tensor* t : {&a, &b}) {
    TT_CHECK(t->dtype() == DType::F32 || t->dtype() == DType::F64,
             "relative error: expected float32 or float64 tensors but got {}",
             dtype_name(t->dtype()));
  }
  const Reader ra(a), rb(b);
  double diff = 0, norm = 0, max_abs = 0;
  bool nan = false;
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double d = ra[i] - rb[i];
    diff += d * d;
    norm += rb[i] * rb[i];
    if (std::isnan(d)) nan = true;
    max_abs = std::max(max_abs, std::fabs(d));
  }
  ErrorVsReference e;
  e.rel_l2 = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  e.max_abs = nan ? std::numeric_limits<double>::infinity() : max_abs;
  return e;
}

}  // namespace tt::models
