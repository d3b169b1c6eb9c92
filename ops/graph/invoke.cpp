#include "ops/graph/invoke.h"

#include <optional>

#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"

namespace tt::graph {
namespace {

using ops::OpKind;

std::vector<int64_t> tail(const std::vector<int64_t>& v, size_t from) {
  return std::vector<int64_t>(v.begin() + static_cast<int64_t>(from), v.end());
}

}  // namespace

std::vector<Tensor> invoke(const Node& n, const std::vector<Tensor>& in) {
  if (n.attrs.replay) return n.attrs.replay(in);
  const auto& i = n.attrs.ints;
  const auto& r = n.attrs.reals;
  switch (n.kind) {
    case OpKind::kUnary:
      return {ops::detail::unary(static_cast<ops::pointwise::UnaryOp>(n.sub), in[0],
                                 {r.at(0), r.at(1)})};
    case OpKind::kBinary:
      return {ops::detail::binary(static_cast<ops::pointwise::BinaryOp>(n.sub), in[0], in[1])};
    case OpKind::kWhere:
      return {ops::where(in[0], in[1], in[2])};
    case OpKind::kCopy: {
      const DType dtype = static_cast<DType>(i.at(0));
      return {in[0].dtype() == dtype ? in[0].clone() : in[0].to(dtype)};
    }
    case OpKind::kLinear:
      return {ops::linear(in[0], in[1], in[2])};
    case OpKind::kMatmul:
      return {ops::matmul(in[0], in[1])};
    case OpKind::kBmm:
      return {ops::bmm(in[0], in[1])};
    case OpKind::kSum:
      return {ops::sum(in[0], tail(i, 1), i.at(0) != 0)};
    case OpKind::kMean:
      return {ops::mean(in[0], tail(i, 1), i.at(0) != 0)};
    case OpKind::kAmax:
      return {ops::amax(in[0], tail(i, 1), i.at(0) != 0)};
    case OpKind::kAmin:
      return {ops::amin(in[0], tail(i, 1), i.at(0) != 0)};
    case OpKind::kVar:
      return {ops::var(in[0], tail(i, 1), r.at(0) != 0.0, i.at(0) != 0)};
    case OpKind::kStd:
      return {ops::std(in[0], tail(i, 1), r.at(0) != 0.0, i.at(0) != 0)};
    case OpKind::kArgmax:
    case OpKind::kArgmin: {
      const std::optional<int64_t> dim = i.at(0) ? std::optional<int64_t>(i.at(1)) : std::nullopt;
      return {n.kind == OpKind::kArgmax ? ops::argmax(in[0], dim, i.at(2) != 0)
                                        : ops::argmin(in[0], dim, i.at(2) != 0)};
    }
    case OpKind::kSoftmax:
      return {ops::softmax(in[0], i.at(0))};
    case OpKind::kLogSoftmax:
      return {ops::log_softmax(in[0], i.at(0))};
    case OpKind::kLayerNorm:
      return {ops::layer_norm(in[0], i, in[1], in[2], r.at(0))};
    case OpKind::kRmsNorm:
      return {ops::rms_norm(in[0], i, in[1], r.at(0))};
    case OpKind::kInstanceNorm:
      return {ops::instance_norm(in[0], r.at(0), in[1], in[2])};
    case OpKind::kGroupNorm:
      return {ops::group_norm(in[0], i.at(0), in[1], in[2], r.at(0))};
    case OpKind::kBatchNorm:
      return {ops::batch_norm(in[0], in[1], in[2], in[3], in[4], i.at(0) != 0, r.at(0), r.at(1))};
    case OpKind::kCat:
      return {ops::cat(in, i.at(0))};
    case OpKind::kStack:
      return {ops::stack(in, i.at(0))};
    case OpKind::kOther:
      break;
    case OpKind::kScaledDotProductAttention:
      return {ops::scaled_dot_product_attention(
          in[0], in[1], in[2], in[3], r.at(0), i.at(0) != 0,
          i.at(1) ? std::optional<double>(r.at(1)) : std::nullopt)};
  }
  TT_FAIL("compile: cannot replay op '{}'", node_op_name(n));
}

}  // namespace tt::graph
