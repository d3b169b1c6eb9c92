// The op front end: every check a user mistake can fail happens here, with a full
// sentence naming the op, what was expected and what was got; then the op runs on
// the inputs' device.
#include "ops/ops.h"
#include "ops/record.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>

#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/front_end.h"
#if TT_CUDA
#include "ops/cuda/cuda_ops.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;

// A per-feature vector (bias, scale, norm weight, running stat): 1-D of `length`
// elements. `why` says where the length comes from ("the input has 6 channels").
void check_vector(const char* op, const char* name, const Tensor& t, int64_t length,
                  const std::string& why) {
  TT_CHECK(t.dim() == 1 && t.size(0) == length, "{}: {} has shape {} but {}; expected [{}]", op,
           name, shape_str(t.sizes()), why, length);
}

void check_optional_vector(const char* op, const char* name, const Tensor& t, int64_t length,
                           const std::string& why) {
  if (t.defined()) check_vector(op, name, t, length, why);
}

void check_eps(const char* op, double eps) {
  TT_CHECK(eps >= 0.0 && std::isfinite(eps), "{}: eps must be finite and >= 0 but is {}", op, eps);
}

void check_momentum(const char* op, double momentum) {
  TT_CHECK(momentum >= 0.0 && momentum <= 1.0, "{}: momentum must be in [0, 1] but is {}", op,
           momentum);
}

void check_groups(const char* op, int64_t groups, int64_t channels) {
  TT_CHECK(groups > 0, "{}: groups must be positive but is {}", op, groups);
  TT_CHECK(channels % groups == 0, "{}: {} channels are not divisible by {} groups", op, channels,
           groups);
}

// x [..., in] against weight [out, in]; returns out.
int64_t check_linear_shapes(const char* op, const Tensor& x, const Tensor& weight) {
  TT_CHECK(weight.dim() == 2, "{}: weight must be 2-D [out_features, in_features] but has shape {}",
           op, shape_str(weight.sizes()));
  TT_CHECK(x.dim() >= 1,
           "{}: input must have at least 1 dimension [..., in_features] but is a "
           "0-D scalar",
           op);
  TT_CHECK(x.size(-1) == weight.size(1), "{}: input has {} features but weight expects {}", op,
           x.size(-1), weight.size(1));
  return weight.size(0);
}

std::string output_features(int64_t n) { return fmt::format("weight has {} output features", n); }

std::string input_channels(int64_t n) { return fmt::format("the input has {} channels", n); }

thread_local bool tls_float64 = false;

}  // namespace

Float64Scope::Float64Scope() : previous_(tls_float64) { tls_float64 = true; }
Float64Scope::~Float64Scope() { tls_float64 = previous_; }
bool float64_enabled() { return tls_float64; }

// ---- building blocks ----

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const RecordScope record(OpKind::kLinear);
  const char* op = "linear";
  check_required(op, "input", x);
  check_required(op, "weight", weight);
  check_optional(op, "bias", bias);
  const Device device = common_device(op, {{"input", x}, {"weight", weight}, {"bias", bias}});
  const int64_t out = check_linear_shapes(op, x, weight);
  check_optional_vector(op, "bias", bias, out, output_features(out));
  return record.done(
      TT_RUN(op, device, cpu::linear(x, weight, bias), cuda::linear(x, weight, bias)),
      {x, weight, bias});
}

Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias) {
  const RecordScope record(OpKind::kInstanceNorm);
  const char* op = "instance_norm";
  const Device device = affine_norm_device(op, x, weight, bias);
  TT_CHECK(x.dim() >= 3, "{}: input must have rank >= 3 [N, C, *spatial] but has shape {}", op,
           shape_str(x.sizes()));
  check_optional_vector(op, "weight", weight, x.size(1), input_channels(x.size(1)));
  check_optional_vector(op, "bias", bias, x.size(1), input_channels(x.size(1)));
  check_eps(op, eps);
  return record.done(TT_RUN(op, device, cpu::instance_norm(x, eps, weight, bias),
                            cuda::instance_norm(x, eps, weight, bias)),
                     {x, weight, bias}, {{}, {eps}, {}});
}

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const RecordScope record(OpKind::kGroupNorm);
  const char* op = "group_norm";
  const Device device = affine_norm_device(op, x, weight, bias);
  TT_CHECK(x.dim() >= 2, "{}: input must have rank >= 2 [N, C, *] but has shape {}", op,
           shape_str(x.sizes()));
  check_groups(op, groups, x.size(1));
  check_optional_vector(op, "weight", weight, x.size(1), input_channels(x.size(1)));
  check_optional_vector(op, "bias", bias, x.size(1), input_channels(x.size(1)));
  check_eps(op, eps);
  return record.done(TT_RUN(op, device, cpu::group_norm(x, groups, weight, bias, eps),
                            cuda::group_norm(x, groups, weight, bias, eps)),
                     {x, weight, bias}, {{groups}, {eps}, {}});
}

namespace {

// Everything batch_norm needs of its statistics and parameters, given the channel
// count.
void check_batch_norm_args(const char* op, int64_t batch, int64_t values_per_channel,
                           int64_t channels, const std::string& channels_why,
                           const Tensor& running_mean, const Tensor& running_var,
                           const Tensor& weight, const Tensor& bias, bool training, double momentum,
                           double eps) {
  check_optional(op, "running_mean", running_mean);
  check_optional(op, "running_var", running_var);
  check_optional(op, "weight", weight);
  check_optional(op, "bias", bias);
  TT_CHECK(running_mean.defined() == running_var.defined(),
           "{}: running_mean is {} but running_var is {}; give both or neither", op,
           running_mean.defined() ? "given" : "undefined",
           running_var.defined() ? "given" : "undefined");
  TT_CHECK(training || running_mean.defined(),
           "{}: eval mode normalises with the running statistics, but running_mean and "
           "running_var are undefined",
           op);
  TT_CHECK(!training || batch * values_per_channel > 1,
           "{}: training needs more than 1 value per channel to compute a batch variance but "
           "got {}",
           op, batch * values_per_channel);
  check_optional_vector(op, "running_mean", running_mean, channels, channels_why);
  check_optional_vector(op, "running_var", running_var, channels, channels_why);
  check_optional_vector(op, "weight", weight, channels, channels_why);
  check_optional_vector(op, "bias", bias, channels, channels_why);
  check_momentum(op, momentum);
  check_eps(op, eps);
}

// Training updates running_mean and running_var in place: neither may overlap itself,
// the other, or anything the op reads.
void check_running_writes(const char* op, bool training, const Tensor& running_mean,
                          const Tensor& running_var, std::initializer_list<NamedTensor> reads) {
  if (!training || !running_mean.defined()) return;
  for (const Tensor* stat : {&running_mean, &running_var}) {
    check_write(op, *stat, {}, reads);
  }
  check_write(op, running_mean, {}, {{"running_var", running_var}});
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  const RecordScope record(OpKind::kBatchNorm);
  const char* op = "batch_norm";
  check_required(op, "input", x);
  const Device device = common_device(op, {{"input", x},
                                           {"running_mean", running_mean},
                                           {"running_var", running_var},
                                           {"weight", weight},
                                           {"bias", bias}});
  TT_CHECK(x.dim() == 2 || x.dim() == 3, "{}: input must be [N, C] or [N, C, L] but has shape {}",
           op, shape_str(x.sizes()));
  const int64_t length = x.dim() == 3 ? x.size(2) : 1;
  check_batch_norm_args(op, x.size(0), length, x.size(1), input_channels(x.size(1)), running_mean,
                        running_var, weight, bias, training, momentum, eps);
  check_running_writes(op, training, running_mean, running_var,
                       {{"input", x}, {"weight", weight}, {"bias", bias}});
  return record.done(
      TT_RUN(op, device,
             cpu::batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps),
             cuda::batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)),
      {x, running_mean, running_var, weight, bias}, {{training ? 1 : 0}, {momentum, eps}, {}});
}

}  // namespace tt::ops
