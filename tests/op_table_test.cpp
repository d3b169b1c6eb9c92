// One table of every op of ops/ops.h with its cases, and one generic test over it (as
// ggml's test-backend-ops and PyTorch's OpInfo): each case runs on the CPU reference
// and on CUDA, first with every tunable kernel at its default config, then under
// every config of the space of every tunable kernel the op launched (one kernel
// swept at a time, the others at their defaults), and the outputs (and the buffers an
// op updates in place) must agree to relative L2 1e-5 (strict float32).
//
// Integer and bool results (argmax/argmin, integer math, comparisons) must agree
// exactly, and dtypes must match.
//
// This folds in the per-family "every config" tests (segment norm, the row-norm and
// group-norm passes, batch norm's column passes, the reduce family's inner/outer/row-map
// spaces, the pointwise family's flat and strided layouts, the GEMM family under
// matmul/bmm): their shapes are cases here, and the configs swept are the spaces' (the
// launchers' candidates, less what the device cannot run). Every op of ops.h has a
// row (the seed models' building blocks and issue 9's: pointwise, matrix products,
// reductions, softmax, norms, shape ops) and so does each in-place member of Tensor;
// adding an op adds a row to op_table() (OpTable.CoversEveryOpOfOpsH fails until it has
// one). The seed models' fused GEMM groups, plain-op forwards that tt::compile fuses,
// have a table of their own at the end (FusedGroupRow), swept compiled.
// Cases are awkward on purpose: one row, odd sizes, sizes just above a tile or vector
// width, non-contiguous and misaligned views (made inside `call`, so the same view is
// taken on each device), broadcasting. The CPU half (case construction, determinism of
// the reference, the coverage of ops.h) runs without a GPU and sweeps nothing; the GPU
// half skips cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/space_cache.h"
#include "core/tensor.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "support/fn_module.h"
#include "support/seed_forwards.h"
#include "support/test_util.h"

namespace tt::test {
namespace {

namespace ops = tt::ops;

// One case: contiguous CPU inputs and the call, which takes them on either device
// and returns what the op produces: its output, then any buffer it updates in place.
struct OpCase {
  std::string name;
  std::vector<Tensor> inputs;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> call;
  // Full-size cases: their inputs are made when a run needs them (make_inputs), the
  // CPU half leaves them out, and so does the GPU half when TT_OP_TABLE_SMALL is set
  // (the racecheck run of tools/device/check.sh; the small cases take every path).
  bool large = false;
  std::function<std::vector<Tensor>()> make_inputs = nullptr;
};

OpCase large(std::string name, std::function<std::vector<Tensor>()> make_inputs,
             std::function<std::vector<Tensor>(const std::vector<Tensor>&)> call) {
  return {std::move(name), {}, std::move(call), true, std::move(make_inputs)};
}

struct OpRow {
  std::string op;  // the name in ops/ops.h
  std::function<std::vector<OpCase>()> cases;
};

constexpr double kTol = 1e-5;

// Inputs: seeded normal values (the seed keeps cases distinct and reproducible).
Tensor rn(const Shape& s, uint64_t seed) { return Tensor::randn(s, seed); }
// A positive running variance.
Tensor pos(const Shape& s, uint64_t seed) { return Tensor::uniform(s, 0.5, 1.5, seed); }

// n int64 ids in [0, hi), seeded.
Tensor ids_below(int64_t hi, int64_t n, uint64_t seed) {
  return (Tensor::rand({n}, seed) * static_cast<double>(hi)).to(DType::I64);
}

using Call = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
Call one(std::function<Tensor(const std::vector<Tensor>&)> f) {
  return [f](const std::vector<Tensor>& in) { return std::vector<Tensor>{f(in)}; };
}

// ---- case builders shared by the rows ----

// Inputs of a domain other than the normal: positive (log, sqrt, divisors), a uint8
// condition (where).
Tensor upos(const Shape& s, uint64_t seed) { return Tensor::uniform(s, 0.25, 4.0, seed); }
Tensor cond(const Shape& s, uint64_t seed) {
  std::vector<uint8_t> c;
  for (float v : Tensor::rand(s, seed).to_vector<float>()) c.push_back(v > 0.5f);
  return Tensor::from_vector(c, s);
}
using Maker = Tensor (*)(const Shape&, uint64_t);

// Binary pointwise: the second operand from `b` (positive for divisors). A ragged
// tail past every vector width and a misaligned (sliced) operand reach the flat
// layout's edges; a transposed one the strided layout.
std::vector<OpCase> binary_cases(Tensor (*op)(const Tensor&, const Tensor&), Maker b = rn) {
  const auto plain = one([op](const auto& in) { return op(in[0], in[1]); });
  return {
      {"same shape, odd sizes", {rn({7, 13}, 1), b({7, 13}, 2)}, plain},
      {"one element", {rn({1}, 3), b({1}, 4)}, plain},
      {"broadcast rows and columns", {rn({7, 1}, 5), b({1, 13}, 6)}, plain},
      {"broadcast rank", {rn({3, 1, 5}, 7), b({4, 5}, 8)}, plain},
      {"non-contiguous", {rn({13, 7}, 9), b({7, 13}, 10)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), in[1]);
       })},
      {"ragged tail", {rn({4099}, 15), b({4099}, 16)}, plain},
      {"misaligned", {rn({4100}, 17), b({4099}, 18)}, one([op](const auto& in) {
         return op(in[0].narrow(0, 1, 4099), in[1]);
       })},
  };
}

std::vector<OpCase> unary_cases(const std::function<Tensor(const Tensor&)>& op, Maker x = rn) {
  const auto plain = one([op](const auto& in) { return op(in[0]); });
  return {
      {"one element", {x({1}, 11)}, plain},
      {"odd sizes", {x({7, 13}, 12)}, plain},
      {"rank 4", {x({2, 3, 5, 7}, 13)}, plain},
      {"non-contiguous", {x({13, 7}, 14)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1));
       })},
      {"ragged tail", {x({4099}, 15)}, plain},
      {"misaligned", {x({4100}, 16)}, one([op](const auto& in) {
         return op(in[0].narrow(0, 1, 4099));
       })},
  };
}

// A Tensor member that updates in place, applied to a device copy of in[0] (or to a
// view of it): the updated tensor is the output.
Call in_place(std::function<void(const std::vector<Tensor>&)> f) {
  return [f](const std::vector<Tensor>& in) {
    f(in);
    return std::vector<Tensor>{in[0]};
  };
}

// Reductions over a dim list: the tensor-level cases (one row, all dims, columns,
// keepdim, dims on both sides of a kept one, views), then the shapes that reach every
// edge of the family's two kernels: inner rows [R, C] (one element, odd, a row split
// over blocks, many short rows, one long row) and outer columns [O, R, I] (few and many
// columns, rows split over blocks, odd and misaligned inner sizes).
using ReduceFn = std::function<Tensor(const Tensor&, const std::vector<int64_t>&, bool)>;
std::vector<OpCase> reduction_cases(const ReduceFn& f, bool arg, bool one_element = true) {
  const auto red = [f](std::vector<int64_t> dims, bool keepdim = false) {
    return one([f, dims, keepdim](const auto& in) { return f(in[0], dims, keepdim); });
  };
  std::vector<OpCase> cases = {
      {"one row", {rn({1, 7}, 300)}, red({1})},
      {"columns", {rn({5, 13}, 301)}, red({0}, true)},
      {"middle dim, keepdim", {rn({3, 4, 5}, 302)}, red({1}, true)},
      {"negative dim", {rn({3, 4, 5}, 303)}, red({-1})},
      {"non-contiguous", {rn({13, 7}, 304)}, one([f](const auto& in) {
         return f(in[0].transpose(0, 1), {1}, false);
       })},
      {"misaligned rows", {rn({6, 12}, 305)}, one([f](const auto& in) {
         return f(in[0].narrow(1, 1, 10), {1}, false);
       })},
      {"expanded (stride 0)", {rn({6, 1, 12}, 306)}, one([f](const auto& in) {
         return f(in[0].expand({6, 4, 12}), {1}, false);
       })},
  };
  // (var/std of one element divide by N - 1 = 0: nan, which the CPU half rejects.)
  if (one_element) cases.push_back({"one element", {rn({1, 1}, 310)}, red({1})});
  if (!arg) {
    cases.push_back({"every dim", {rn({5, 13}, 307)}, red({})});
    cases.push_back({"dims around a kept one", {rn({3, 4, 5}, 308)}, red({0, 2})});
    cases.push_back(
        {"two trailing dims of a view", {rn({6, 10, 12}, 309)}, one([f](const auto& in) {
           return f(in[0].permute({1, 2, 0}), {1, 2}, true);
         })});
  } else {
    cases.push_back({"flattened (no dim)", {rn({5, 13}, 307)}, red({})});
  }
  const std::pair<Shape, bool> kernels[] = {
      {{3, 7}, false},       {{37, 64}, false},      {{5, 1000}, false},   {{2, 33000}, true},
      {{300, 128}, false},   {{1, 4096}, false},     {{1, 5, 3}, false},   {{2, 100, 64}, false},
      {{3, 1000, 6}, false}, {{1, 4000, 128}, true}, {{7, 9, 260}, false}, {{1, 20000, 4}, true},
  };
  uint64_t seed = 320;
  for (const auto& [shape, large_case] : kernels) {
    const std::string name = (shape.size() == 2 ? "inner " : "outer ") + tt::shape_str(shape);
    const Shape s = shape;  // (a structured binding cannot be captured in C++17)
    if (large_case) {
      cases.push_back(large(
          name, [s, seed] { return std::vector<Tensor>{rn(s, seed)}; }, red({1})));
    } else {
      cases.push_back({name, {rn(s, seed)}, red({1})});
    }
    ++seed;
  }
  return cases;
}

Tensor arg_of(Tensor (*op)(const Tensor&, std::optional<int64_t>, bool), const Tensor& x,
              const std::vector<int64_t>& dims, bool keepdim) {
  if (dims.empty()) return op(x, std::nullopt, keepdim);
  return op(x, dims[0], keepdim);
}

// Row maps (softmax, log_softmax): rows in registers (every width up to a block's) and
// streamed (longer), one element, a non-innermost dim (a transposed copy), a view.
std::vector<OpCase> softmax_cases(Tensor (*op)(const Tensor&, int64_t)) {
  const auto on = [op](int64_t dim) {
    return one([op, dim](const auto& in) { return op(in[0], dim); });
  };
  // Far from 0 (the max must be subtracted) and spread over +-30.
  const auto spread = [](const Shape& s, uint64_t seed) {
    return Tensor::uniform(s, -30.0, 30.0, seed);
  };
  std::vector<OpCase> cases = {
      {"one element", {spread({1, 1}, 400)}, on(1)},
      {"offset rows", {Tensor::uniform({4, 5, 6}, 80.0, 120.0, 401)}, on(-1)},
      {"first dim (not innermost)", {rn({4, 5, 6}, 402)}, on(0)},
      {"transposed view", {rn({9, 40}, 403)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), 1);
       })},
  };
  uint64_t seed = 410;
  for (const Shape& s : {Shape{5, 7}, Shape{33, 64}, Shape{9, 512}, Shape{3, 1000}, Shape{2, 4096},
                         Shape{3, 4099}}) {
    cases.push_back({"rows " + tt::shape_str(s), {spread(s, seed++)}, on(1)});
  }
  cases.push_back(large(
      "rows [2, 16384]",
      [=] {
        return std::vector<Tensor>{spread({2, 16384}, seed)};
      },
      on(1)));
  cases.push_back(large(
      "streamed rows [1, 40000]",
      [=] {
        return std::vector<Tensor>{spread({1, 40000}, seed + 1)};
      },
      on(1)));
  return cases;
}

// The table: one row per op of ops.h.
const std::vector<OpRow>& base_op_table() {
  static const std::vector<OpRow> rows = {
      {"linear",
       [] {
         const auto with_bias =
             one([](const auto& in) { return ops::linear(in[0], in[1], in[2]); });
         return std::vector<OpCase>{
             {"one row", {rn({1, 5}, 20), rn({7, 5}, 21), rn({7}, 22)}, with_bias},
             {"odd sizes", {rn({13, 37}, 23), rn({29, 37}, 24), rn({29}, 25)}, with_bias},
             {"just above a tile",
              {rn({129, 64}, 26), rn({130, 64}, 27), rn({130}, 28)},
              with_bias},
             {"no bias, rank 3", {rn({2, 3, 8}, 29), rn({5, 8}, 30)}, one([](const auto& in) {
                return ops::linear(in[0], in[1]);
              })},
             {"non-contiguous input",
              {rn({37, 13}, 31), rn({29, 37}, 32), rn({29}, 33)},
              one([](const auto& in) { return ops::linear(in[0].transpose(0, 1), in[1], in[2]); })},
         };
       }},
      {"instance_norm",
       [] {
         const auto affine =
             one([](const auto& in) { return ops::instance_norm(in[0], 1e-5, in[1], in[2]); });
         const auto plain = one([](const auto& in) { return ops::instance_norm(in[0]); });
         return std::vector<OpCase>{
             {"one slice", {rn({1, 1, 7}, 40)}, plain},
             {"odd sizes, affine", {rn({2, 3, 13}, 41), rn({3}, 42), rn({3}, 43)}, affine},
             {"2d spatial", {rn({2, 4, 5, 5}, 44)}, plain},
             {"just above 1024", {rn({3, 2, 1025}, 45), rn({2}, 46), rn({2}, 47)}, affine},
             {"non-contiguous", {rn({2, 3, 20}, 48)}, one([](const auto& in) {
                return ops::instance_norm(in[0].narrow(2, 1, 17));
              })},
             // Every kernel kind at the smallest shapes that reach it: 1x1 planes, a
             // warp's 1024 and a block's 32768 just exceeded, more slices than the
             // persistent pipe grid has clusters (a partly filled last slice per CTA).
             {"1x1 planes", {rn({4, 6, 1, 1}, 400)}, plain},
             {"7x13 planes", {rn({3, 5, 7, 13}, 401), rn({5}, 402), rn({5}, 403)}, affine},
             {"just above a block", {rn({1, 2, 32772}, 404)}, plain},
             {"pipe loops, 65536-float variants", {rn({4, 10, 65540}, 405)}, plain},
             {"pipe loops, 16384-float variants", {rn({2, 40, 16388}, 406)}, plain},
             // Full-size slices: just above a 16-CTA cluster's 262144 floats, 512x512
             // planes (pipe variants loop over several), 256x256 planes.
             large(
                 "just above a cluster",
                 [] {
                   return std::vector<Tensor>{rn({1, 1, 262148}, 407)};
                 },
                 plain),
             large(
                 "512x512 planes",
                 [] {
                   return std::vector<Tensor>{rn({5, 8, 512, 512}, 408), rn({8}, 409),
                                              rn({8}, 410)};
                 },
                 affine),
             large(
                 "256x256 planes",
                 [] {
                   return std::vector<Tensor>{rn({4, 50, 256, 256}, 411)};
                 },
                 plain),
         };
       }},
      {"group_norm",
       [] {
         const auto call = [](int64_t groups) {
           return one(
               [groups](const auto& in) { return ops::group_norm(in[0], groups, in[1], in[2]); });
         };
         return std::vector<OpCase>{
             {"3 groups", {rn({2, 6, 5}, 50), rn({6}, 51), rn({6}, 52)}, call(3)},
             {"one group", {rn({3, 4, 7}, 53), rn({4}, 54), rn({4}, 55)}, call(1)},
             {"groups = channels", {rn({2, 5, 3}, 56), rn({5}, 57), rn({5}, 58)}, call(5)},
             {"rank 2, one row", {rn({1, 8}, 59), rn({8}, 60), rn({8}, 61)}, call(2)},
             {"groups of 64", {rn({4, 128}, 62), rn({128}, 63), rn({128}, 64)}, call(2)},
             {"rank 2, odd groups", {rn({5, 12}, 65), rn({12}, 66), rn({12}, 67)}, call(3)},
             {"7x13 planes", {rn({2, 6, 7, 13}, 68), rn({6}, 69), rn({6}, 70)}, call(2)},
         };
       }},
      {"batch_norm",
       [] {
         const auto call = [](bool training) {
           return Call([training](const std::vector<Tensor>& in) {
             const Tensor out = ops::batch_norm(in[0], in[1], in[2], in[3], in[4], training);
             return std::vector<Tensor>{out, in[1], in[2]};  // running stats updated in place
           });
         };
         const auto inputs = [](const Shape& x, int64_t c, uint64_t seed) {
           return std::vector<Tensor>{rn(x, seed), rn({c}, seed + 1), pos({c}, seed + 2),
                                      rn({c}, seed + 3), rn({c}, seed + 4)};
         };
         return std::vector<OpCase>{
             {"[N, C] training", inputs({7, 13}, 13, 70), call(true)},
             {"[N, C, L] training", inputs({2, 3, 5}, 3, 75), call(true)},
             {"[N, C] eval", inputs({7, 13}, 13, 80), call(false)},
             {"[N, C, L] eval", inputs({5, 4, 3}, 4, 85), call(false)},
             {"just above a chunk, training", inputs({257, 130}, 130, 90), call(true)},
         };
       }},
      // ---- pointwise (the pointwise family), scalar forms and operators ----
      {"add",
       [] {
         auto cases = binary_cases(&ops::add);
         cases.push_back({"scalar", {rn({5, 7}, 500)}, one([](const auto& in) {
                            return ops::add(in[0], 2.5);
                          })});
         cases.push_back({"operator, transposed",
                          {rn({17, 33}, 501), rn({17}, 502)},
                          one([](const auto& in) { return in[0].transpose(0, 1) + in[1]; })});
         return cases;
       }},
      {"sub",
       [] {
         auto cases = binary_cases(&ops::sub);
         cases.push_back({"scalar on the left", {rn({5, 7}, 503)}, one([](const auto& in) {
                            return 1.5 - in[0];
                          })});
         return cases;
       }},
      {"mul",
       [] {
         auto cases = binary_cases(&ops::mul);
         cases.push_back({"scalar, transposed", {rn({7, 5}, 504)}, one([](const auto& in) {
                            return 3.0 * in[0].transpose(0, 1);
                          })});
         return cases;
       }},
      {"div",
       [] {
         auto cases = binary_cases(&ops::div, upos);
         cases.push_back({"scalar over a tensor", {upos({5, 7}, 505)}, one([](const auto& in) {
                            return 2.0 / in[0];
                          })});
         cases.push_back({"by a scalar", {rn({5, 7}, 506)}, one([](const auto& in) {
                            return ops::div(in[0], 3.0);
                          })});
         return cases;
       }},
      {"maximum", [] { return binary_cases(&ops::maximum); }},
      {"minimum", [] { return binary_cases(&ops::minimum); }},
      {"where",
       [] {
         const auto call = one([](const auto& in) { return ops::where(in[0], in[1], in[2]); });
         return std::vector<OpCase>{
             {"same shape", {cond({7, 13}, 510), rn({7, 13}, 511), rn({7, 13}, 512)}, call},
             {"broadcast", {cond({4, 1}, 513), rn({4, 6}, 514), rn({6}, 515)}, call},
             {"transposed operand",
              {cond({4, 6}, 516), rn({6, 4}, 517), rn({4, 6}, 518)},
              one([](const auto& in) { return ops::where(in[0], in[1].transpose(0, 1), in[2]); })},
             {"ragged tail", {cond({4099}, 519), rn({4099}, 520), rn({1}, 521)}, call},
         };
       }},
      {"neg",
       [] {
         auto cases = unary_cases(&ops::neg);
         cases.push_back(
             {"operator", {rn({5, 7}, 530)}, one([](const auto& in) { return -in[0]; })});
         return cases;
       }},
      {"abs", [] { return unary_cases(&ops::abs); }},
      {"exp", [] { return unary_cases(&ops::exp); }},
      {"log", [] { return unary_cases(&ops::log, upos); }},
      {"sqrt", [] { return unary_cases(&ops::sqrt, upos); }},
      {"rsqrt", [] { return unary_cases(&ops::rsqrt, upos); }},
      {"tanh", [] { return unary_cases(&ops::tanh); }},
      {"pow",
       [] {
         auto cases = unary_cases([](const Tensor& x) { return ops::pow(x, 3.0); });
         cases.push_back({"negative fractional exponent",
                          {upos({5, 7}, 531)},
                          one([](const auto& in) { return ops::pow(in[0], -0.75); })});
         return cases;
       }},
      {"clamp",
       [] {
         auto cases = unary_cases([](const Tensor& x) { return ops::clamp(x, -0.5, 0.25); });
         cases.push_back({"lower bound only", {rn({5, 7}, 532)}, one([](const auto& in) {
                            return ops::clamp(in[0], 0.1, std::nullopt);
                          })});
         return cases;
       }},
      {"relu", [] { return unary_cases(&ops::relu); }},
      {"sigmoid", [] { return unary_cases(&ops::sigmoid); }},
      {"swish", [] { return unary_cases(&ops::swish); }},
      {"silu", [] { return unary_cases(&ops::silu); }},
      {"gelu",
       [] {
         auto cases = unary_cases([](const Tensor& x) { return ops::gelu(x); });
         cases.push_back(
             {"tanh approximation, transposed", {rn({7, 5}, 533)}, one([](const auto& in) {
                return ops::gelu(in[0].transpose(0, 1), "tanh");
              })});
         return cases;
       }},
      {"leaky_relu",
       [] { return unary_cases([](const Tensor& x) { return ops::leaky_relu(x, 0.2); }); }},
      // ---- in-place members (core/tensor.h), on a device copy or a view of it ----
      {"add_",
       [] {
         return std::vector<OpCase>{
             {"broadcast", {rn({4, 6}, 540), rn({6}, 541)}, in_place([](const auto& in) {
                in[0].add_(in[1]);
              })},
             {"scalar", {rn({4099}, 542)}, in_place([](const auto& in) { in[0].add_(2.5); })},
             {"into a transposed view",
              {rn({6, 4}, 543), rn({4, 6}, 544)},
              in_place([](const auto& in) { in[0].transpose(0, 1).add_(in[1]); })},
         };
       }},
      {"sub_",
       [] {
         return std::vector<OpCase>{
             {"scalar", {rn({4, 6}, 545)}, in_place([](const auto& in) { in[0].sub_(1.5); })},
             {"broadcast column", {rn({4, 6}, 546), rn({4, 1}, 547)}, in_place([](const auto& in) {
                in[0].sub_(in[1]);
              })},
             {"into a slice", {rn({4, 6}, 548), rn({3}, 549)}, in_place([](const auto& in) {
                in[0].narrow(1, 2, 3).sub_(in[1]);
              })},
         };
       }},
      {"mul_",
       [] {
         return std::vector<OpCase>{
             {"broadcast column", {rn({4, 6}, 550), rn({4, 1}, 551)}, in_place([](const auto& in) {
                in[0].mul_(in[1]);
              })},
             {"scalar", {rn({7, 13}, 552)}, in_place([](const auto& in) { in[0].mul_(-3.0); })},
             {"into a selected row", {rn({4, 6}, 553), rn({6}, 554)}, in_place([](const auto& in) {
                in[0].select(0, 2).mul_(in[1]);
              })},
         };
       }},
      {"div_",
       [] {
         return std::vector<OpCase>{
             {"transposed by transposed",
              {rn({4, 6}, 555), upos({4, 6}, 556)},
              in_place([](const auto& in) { in[0].transpose(0, 1).div_(in[1].transpose(0, 1)); })},
             {"scalar", {rn({4099}, 557)}, in_place([](const auto& in) { in[0].div_(7.0); })},
             {"broadcast", {rn({3, 4, 6}, 558), upos({6}, 559)}, in_place([](const auto& in) {
                in[0].div_(in[1]);
              })},
         };
       }},
      {"fill_",
       [] {
         return std::vector<OpCase>{
             {"a slice", {rn({4, 6}, 560)}, in_place([](const auto& in) {
                in[0].narrow(1, 2, 3).fill_(7.0);
              })},
             {"whole, ragged", {rn({4099}, 561)}, in_place([](const auto& in) {
                in[0].fill_(-2.0);
              })},
             {"a transposed view", {rn({5, 7}, 562)}, in_place([](const auto& in) {
                in[0].transpose(0, 1).fill_(0.5);
              })},
         };
       }},
      {"zero_",
       [] {
         return std::vector<OpCase>{
             {"a selected row", {rn({4, 6}, 563)}, in_place([](const auto& in) {
                in[0].select(0, 1).zero_();
              })},
             {"whole", {rn({7, 13}, 564)}, in_place([](const auto& in) { in[0].zero_(); })},
             {"a column", {rn({5, 7}, 565)}, in_place([](const auto& in) {
                in[0].select(1, 3).zero_();
              })},
         };
       }},
      // ---- matrix products ----
      {"matmul",
       [] {
         const auto call = one([](const auto& in) { return ops::matmul(in[0], in[1]); });
         return std::vector<OpCase>{
             {"2-D, odd sizes", {rn({7, 9}, 570), rn({9, 5}, 571)}, call},
             {"one row", {rn({1, 5}, 572), rn({5, 7}, 573)}, call},
             {"just above a tile", {rn({129, 64}, 574), rn({64, 130}, 575)}, call},
             {"transposed views", {rn({65, 33}, 576), rn({17, 65}, 577)}, one([](const auto& in) {
                return ops::matmul(in[0].transpose(0, 1), in[1].transpose(0, 1));
              })},
             {"batched by 2-D", {rn({3, 7, 9}, 578), rn({9, 5}, 579)}, call},
             {"1-D by batched", {rn({9}, 580), rn({3, 9, 5}, 581)}, call},
             {"broadcast batch dims", {rn({2, 1, 4, 9}, 582), rn({3, 9, 6}, 583)}, call},
             {"1-D dot", {rn({9}, 584), rn({9}, 585)}, call},
         };
       }},
      {"bmm",
       [] {
         const auto call = one([](const auto& in) { return ops::bmm(in[0], in[1]); });
         return std::vector<OpCase>{
             {"odd sizes", {rn({3, 7, 9}, 590), rn({3, 9, 5}, 591)}, call},
             {"transposed second operand",
              {rn({3, 7, 9}, 592), rn({3, 5, 9}, 593)},
              one([](const auto& in) { return ops::bmm(in[0], in[1].transpose(1, 2)); })},
             {"one batch, one row", {rn({1, 1, 9}, 594), rn({1, 9, 5}, 595)}, call},
             {"just above a tile", {rn({2, 129, 32}, 596), rn({2, 32, 130}, 597)}, call},
         };
       }},
      // ---- reductions (the reduce family) ----
      {"sum",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::sum(x, d, k); }, false);
       }},
      {"mean",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::mean(x, d, k); }, false);
       }},
      {"var",
       [] {
         auto cases = reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::var(x, d, true, k); }, false,
             false);
         // A mean 1000 times the spread: the statistics must keep the digits.
         cases.push_back({"biased, large mean",
                          {Tensor::uniform({7, 3001}, 999.0, 1001.0, 600)},
                          one([](const auto& in) { return ops::var(in[0], {1}, false); })});
         return cases;
       }},
      {"std",
       [] {
         auto cases = reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::std(x, d, true, k); }, false,
             false);
         cases.push_back({"biased, columns of a large mean",
                          {Tensor::uniform({3001, 7}, 999.0, 1001.0, 601)},
                          one([](const auto& in) { return ops::std(in[0], {0}, false); })});
         return cases;
       }},
      {"amax",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::amax(x, d, k); }, false);
       }},
      {"amin",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return ops::amin(x, d, k); }, false);
       }},
      {"argmax",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return arg_of(&ops::argmax, x, d, k); },
             true);
       }},
      {"argmin",
       [] {
         return reduction_cases(
             [](const Tensor& x, const auto& d, bool k) { return arg_of(&ops::argmin, x, d, k); },
             true);
       }},
      {"softmax", [] { return softmax_cases(&ops::softmax); }},
      {"log_softmax", [] { return softmax_cases(&ops::log_softmax); }},
      {"layer_norm",
       [] {
         return std::vector<OpCase>{
             {"affine", {rn({4, 5, 6}, 610), rn({6}, 611), rn({6}, 612)}, one([](const auto& in) {
                return ops::layer_norm(in[0], {6}, in[1], in[2]);
              })},
             {"two normalised dims", {rn({4, 5, 6}, 613)}, one([](const auto& in) {
                return ops::layer_norm(in[0], {5, 6});
              })},
             {"one row of one", {rn({1, 1}, 614)}, one([](const auto& in) {
                return ops::layer_norm(in[0], {1});
              })},
             {"odd rows, offset", {rn({8, 1031}, 615)}, one([](const auto& in) {
                return ops::layer_norm(in[0] * 3.0 + 1.0, {1031});
              })},
             {"attention width, affine",
              {rn({33, 512}, 616), rn({512}, 617), rn({512}, 618)},
              one([](const auto& in) { return ops::layer_norm(in[0], {512}, in[1], in[2]); })},
             {"transposed view", {rn({6, 5}, 619)}, one([](const auto& in) {
                return ops::layer_norm(in[0].transpose(0, 1), {6});
              })},
             {"rows just above a block",
              {rn({3, 4099}, 620), rn({4099}, 621), rn({4099}, 622)},
              one([](const auto& in) { return ops::layer_norm(in[0], {4099}, in[1], in[2]); })},
         };
       }},
      {"rms_norm",
       [] {
         const auto weighted = [](int64_t n) {
           return one([n](const auto& in) { return ops::rms_norm(in[0], {n}, in[1]); });
         };
         std::vector<OpCase> cases = {
             {"weighted", {rn({4, 5, 6}, 630), rn({6}, 631)}, weighted(6)},
             {"transposed, eps", {rn({4, 5, 6}, 632)}, one([](const auto& in) {
                return ops::rms_norm(in[0].transpose(1, 2), {5}, Tensor(), 1e-3);
              })},
             {"one element", {rn({1, 1}, 633), upos({1}, 634)}, weighted(1)},
         };
         uint64_t seed = 640;
         for (int64_t c : {7, 64, 512, 1000, 4096}) {
           cases.push_back({"rows of " + std::to_string(c),
                            {rn({5, c}, seed), upos({c}, seed + 1)},
                            weighted(c)});
           seed += 2;
         }
         cases.push_back(large(
             "streamed rows of 40000",
             [] {
               return std::vector<Tensor>{rn({1, 40000}, 650), upos({40000}, 651)};
             },
             weighted(40000)));
         return cases;
       }},
      // ---- shape ops (any device; views where possible) ----
      {"cat",
       [] {
         return std::vector<OpCase>{
             {"middle dim, a transposed part",
              {rn({2, 3, 4}, 660), rn({2, 4, 5}, 661)},
              one([](const auto& in) {
                return ops::cat({in[0], in[1].transpose(1, 2)}, 1);
              })},
             {"first dim", {rn({2, 3}, 662), rn({4, 3}, 663)}, one([](const auto& in) {
                return ops::cat({in[0], in[1]});
              })},
             {"last dim, three parts",
              {rn({3, 1}, 664), rn({3, 5}, 665), rn({3, 2}, 666)},
              one([](const auto& in) {
                return ops::cat({in[0], in[1], in[2]}, -1);
              })},
         };
       }},
      {"stack",
       [] {
         const auto at = [](int64_t dim) {
           return one([dim](const auto& in) { return ops::stack({in[0], in[1]}, dim); });
         };
         return std::vector<OpCase>{
             {"last dim", {rn({2, 3}, 670), rn({2, 3}, 671)}, at(-1)},
             {"first dim", {rn({5}, 672), rn({5}, 673)}, at(0)},
             {"views", {rn({3, 4}, 674), rn({4, 3}, 675)}, one([](const auto& in) {
                return ops::stack({in[0].transpose(0, 1), in[1]}, 1);
              })},
         };
       }},
      {"split",
       [] {
         const auto pieces = [](std::vector<Tensor> parts) {
           for (Tensor& p : parts) p = p.contiguous();
           return parts;
         };
         return std::vector<OpCase>{
             {"even pieces and a short one",
              {rn({7, 3}, 680)},
              [pieces](const auto& in) { return pieces(ops::split(in[0], 3)); }},
             {"sizes along the last dim",
              {rn({3, 7}, 681)},
              [pieces](const auto& in) {
                return pieces(ops::split(in[0], {2, 4, 1}, -1));
              }},
             {"one piece",
              {rn({4, 2}, 682)},
              [pieces](const auto& in) { return pieces(ops::split(in[0], 8)); }},
         };
       }},
      {"chunk",
       [] {
         const auto pieces = [](std::vector<Tensor> parts) {
           for (Tensor& p : parts) p = p.contiguous();
           return parts;
         };
         return std::vector<OpCase>{
             {"three of seven",
              {rn({3, 7}, 690)},
              [pieces](const auto& in) { return pieces(ops::chunk(in[0], 3, 1)); }},
             {"more chunks than rows",
              {rn({2, 5}, 691)},
              [pieces](const auto& in) { return pieces(ops::chunk(in[0], 4)); }},
             {"of a view",
              {rn({6, 4}, 692)},
              [pieces](const auto& in) { return pieces(ops::chunk(in[0].transpose(0, 1), 2, 1)); }},
         };
       }},
      {"select",
       [] {
         return std::vector<OpCase>{
             {"negative index", {rn({3, 7}, 700)}, one([](const auto& in) {
                return ops::select(in[0], 1, -2).contiguous();
              })},
             {"first dim", {rn({4, 5, 6}, 701)}, one([](const auto& in) {
                return ops::select(in[0], 0, 3).contiguous();
              })},
             {"of a view", {rn({5, 7}, 702)}, one([](const auto& in) {
                return ops::select(in[0].transpose(0, 1), 0, 6).contiguous();
              })},
         };
       }},
      {"expand",
       [] {
         return std::vector<OpCase>{
             {"new leading dim", {rn({3, 1}, 710)}, one([](const auto& in) {
                return ops::expand(in[0], {2, 3, 4}).contiguous();
              })},
             {"size-1 dim", {rn({1, 5}, 711)}, one([](const auto& in) {
                return ops::expand(in[0], {4, 5}).contiguous();
              })},
             {"both dims", {rn({1, 1}, 712)}, one([](const auto& in) {
                return ops::expand(in[0], {4, 3}).contiguous();
              })},
         };
       }},
      {"flatten",
       [] {
         return std::vector<OpCase>{
             {"from dim 1 of a view", {rn({3, 5, 4}, 720)}, one([](const auto& in) {
                return ops::flatten(in[0].transpose(1, 2), 1);
              })},
             {"everything", {rn({2, 3, 4}, 721)}, one([](const auto& in) {
                return ops::flatten(in[0]);
              })},
             {"middle dims", {rn({2, 3, 4, 5}, 722)}, one([](const auto& in) {
                return ops::flatten(in[0], 1, 2);
              })},
         };
       }},
      // ---- attention (issue 19) ----
      {"scaled_dot_product_attention",
       [] {
         const auto sdpa = [](bool causal) {
           return one([causal](const auto& in) {
             return ops::scaled_dot_product_attention(in[0], in[1], in[2], Tensor(), 0.0, causal);
           });
         };
         const auto masked = one([](const auto& in) {
           return ops::scaled_dot_product_attention(in[0], in[1], in[2], in[3]);
         });
         std::vector<uint8_t> keep;
         for (float x : Tensor::rand({2, 1, 37, 45}, 739).to_vector<float>())
           keep.push_back(x < 0.7f);
         for (int j = 0; j < 45; ++j) keep[static_cast<size_t>(5 * 45 + j)] = 0;  // a masked row
         return std::vector<OpCase>{
             {"tiles off the edges, head dim 64",
              {rn({2, 3, 77, 64}, 730), rn({2, 3, 77, 64}, 731), rn({2, 3, 77, 64}, 732)},
              sdpa(false)},
             {"causal, L > S, head dim 128",
              {rn({1, 2, 70, 128}, 733), rn({1, 2, 33, 128}, 734), rn({1, 2, 33, 128}, 735)},
              sdpa(true)},
             {"head dim 32, additive mask over every head",
              {rn({2, 2, 40, 32}, 736), rn({2, 2, 90, 32}, 737), rn({2, 2, 90, 32}, 738),
               rn({40, 90}, 740)},
              masked},
             {"odd head dims, boolean mask with a masked row",
              {rn({2, 3, 37, 20}, 741), rn({2, 3, 45, 20}, 742), rn({2, 3, 45, 12}, 743),
               Tensor::from_vector(keep, {2, 1, 37, 45})},
              masked},
             {"head split of a packed projection, read in place",
              {rn({2, 50, 3, 4, 64}, 744)},
              one([](const auto& in) {
                const auto head = [&](int i) { return in[0].select(2, i).transpose(1, 2); };
                return ops::scaled_dot_product_attention(head(0), head(1), head(2), Tensor(), 0.0,
                                                         true);
              })},
         };
       }},
      // ---- issue 20, part B: indexing, embeddings, dropout (ops/index_ops.cpp) ----
      {"index_select",
       [] {
         const auto ids = [](std::vector<int64_t> v) {
           const int64_t n = static_cast<int64_t>(v.size());
           return Tensor::from_vector(v, {n});
         };
         return std::vector<OpCase>{
             {"dim 0, repeats", {rn({5, 7}, 900), ids({4, 0, 0, 2, 4})}, one([](const auto& in) {
                return ops::index_select(in[0], 0, in[1]);
              })},
             {"last dim of a transposed view",
              {rn({6, 9, 3}, 901), ids({2, 8, 1})},
              one([](const auto& in) {
                return ops::index_select(in[0].transpose(1, 2), -1, in[1]);
              })},
             {"int64 values",
              {Tensor::arange(0, 40).reshape({5, 8}), ids({7, 0})},
              one([](const auto& in) { return ops::index_select(in[0], 1, in[1]); })},
             {"more rows than 256 threads",
              {rn({300, 33}, 902), ids_below(300, 517, 903)},
              one([](const auto& in) { return ops::index_select(in[0], 0, in[1]); })},
         };
       }},
      {"gather",
       [] {
         return std::vector<OpCase>{
             {"dim 1",
              {rn({4, 6}, 910), Tensor::from_vector<int64_t>({5, 0, 0, 1, 2, 3, 4, 4}, {4, 2})},
              one([](const auto& in) { return ops::gather(in[0], 1, in[1]); })},
             {"dim 0, smaller index",
              {rn({5, 3, 2}, 911), ids_below(5, 12, 912).reshape({2, 3, 2})},
              one([](const auto& in) { return ops::gather(in[0], 0, in[1]); })},
             {"non-contiguous input and index",
              {rn({7, 4}, 913), ids_below(7, 20, 914).reshape({5, 4})},
              one([](const auto& in) { return ops::gather(in[0].t(), 1, in[1].t()); })},
         };
       }},
      {"embedding",
       [] {
         return std::vector<OpCase>{
             {"2-D ids",
              {rn({10, 4}, 920), ids_below(10, 10, 921).reshape({2, 5})},
              one([](const auto& in) { return ops::embedding(in[0], in[1]); })},
             {"one id, odd width",
              {rn({3, 37}, 922), Tensor::from_vector<int64_t>({2}, {})},
              one([](const auto& in) { return ops::embedding(in[0], in[1]); })},
             {"wide rows",
              {rn({50, 513}, 923), ids_below(50, 64, 924).reshape({4, 4, 4})},
              one([](const auto& in) { return ops::embedding(in[0], in[1]); })},
         };
       }},
      {"dropout",
       [] {
         return std::vector<OpCase>{
             {"p 0.3", {rn({8, 33}, 930)}, one([](const auto& in) {
                return ops::dropout(in[0], 0.3, true, 11);
              })},
             {"p 0.9, one row", {rn({1, 1025}, 931)}, one([](const auto& in) {
                return ops::dropout(in[0], 0.9, true, 12);
              })},
             {"non-contiguous", {rn({6, 10}, 932)}, one([](const auto& in) {
                return ops::dropout(in[0].t(), 0.5, true, 13);
              })},
             {"eval is the identity", {rn({3, 5}, 933)}, one([](const auto& in) {
                return ops::dropout(in[0], 0.5, false);
              })},
         };
       }},
  };
  return rows;
}

// ---- issue 20 (part A): integer and bool dtypes ----
// Rows of the ops that take any dtype, and integer/bool cases of the float ops
// (joined() appends a row whose op already has one to that row's cases).

// int64 values in [-5, 5]; nonzero divisors in [-5, -1] and [1, 5]; bool masks.
Tensor ints(const Shape& s, uint64_t seed) {
  return ops::sub(ops::mul(Tensor::rand(s, seed), 11.0), 5.5).to(DType::I64);
}
Tensor divisors(const Shape& s, uint64_t seed) {
  const Tensor magnitude = ops::add(ops::mul(Tensor::rand(s, seed), 4.99), 1.0).to(DType::I64);
  return ops::where(Tensor::rand(s, seed + 1000) > 0.5, magnitude, ops::neg(magnitude));
}
Tensor mask(const Shape& s, uint64_t seed) { return Tensor::rand(s, seed) > 0.5; }
// Small integers as float32: comparisons meet ties.
Tensor fints(const Shape& s, uint64_t seed) { return ints(s, seed).to(DType::F32); }

std::vector<OpRow> joined(std::vector<OpRow> rows, const std::vector<OpRow>& more) {
  for (const OpRow& extra : more) {
    auto it =
        std::find_if(rows.begin(), rows.end(), [&](const OpRow& r) { return r.op == extra.op; });
    if (it == rows.end()) {
      rows.push_back(extra);
      continue;
    }
    it->cases = [base = it->cases, add = extra.cases] {
      std::vector<OpCase> cases = base();
      for (OpCase& c : add()) cases.push_back(std::move(c));
      return cases;
    };
  }
  return rows;
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using ScalarFn = Tensor (*)(const Tensor&, double);

std::vector<OpCase> compare_cases(BinaryFn op, ScalarFn scalar) {
  const auto plain = one([op](const auto& in) { return op(in[0], in[1]); });
  return {
      {"float32, broadcast", {fints({7, 1}, 700), fints({1, 13}, 701)}, plain},
      {"int64, transposed", {ints({13, 7}, 702), ints({7, 13}, 703)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), in[1]);
       })},
      {"float32 with a scalar", {rn({5, 7}, 704)}, one([scalar](const auto& in) {
         return scalar(in[0], 0.25);
       })},
      {"int64 against float32, ragged", {ints({4099}, 705), fints({4099}, 706)}, plain},
      {"bool", {mask({4099}, 707), mask({4099}, 708)}, plain},
      {"int32 against one element",
       {ints({33}, 709).to(DType::I32), ints({1}, 710).to(DType::I32)},
       plain},
      {"uint8, misaligned",
       {ints({4100}, 711).to(DType::U8), ints({4099}, 712).to(DType::U8)},
       one([op](const auto& in) { return op(in[0].narrow(0, 1, 4099), in[1]); })},
  };
}

std::vector<OpCase> logical_cases(BinaryFn op) {
  const auto plain = one([op](const auto& in) { return op(in[0], in[1]); });
  return {
      {"bool", {mask({7, 13}, 720), mask({7, 13}, 721)}, plain},
      {"bool, broadcast", {mask({4, 1}, 722), mask({1, 6}, 723)}, plain},
      {"float32 and int64", {fints({4099}, 724), ints({4099}, 725)}, plain},
      {"transposed", {mask({13, 7}, 726), mask({7, 13}, 727)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), in[1]);
       })},
  };
}

// Unary ops of any dtype; NaN and inf are made inside the call (log of a negative,
// x / 0), as the CPU half wants finite inputs.
std::vector<OpCase> any_dtype_unary_cases(Tensor (*op)(const Tensor&)) {
  const auto plain = one([op](const auto& in) { return op(in[0]); });
  return {
      {"float32 with nan and inf",
       {fints({7, 13}, 730), fints({7, 13}, 731)},
       one([op](const auto& in) { return op(ops::add(ops::div(in[0], in[1]), ops::log(in[1]))); })},
      {"int64", {ints({4099}, 732)}, plain},
      {"bool, transposed", {mask({13, 7}, 733)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1));
       })},
      {"int32", {ints({5, 7}, 734).to(DType::I32)}, plain},
  };
}

std::vector<OpCase> division_cases(BinaryFn op, ScalarFn scalar) {
  const auto plain = one([op](const auto& in) { return op(in[0], in[1]); });
  return {
      {"float32", {Tensor::uniform({7, 13}, -9.0, 9.0, 740), upos({7, 13}, 741)}, plain},
      {"float32, negative divisors, broadcast",
       {Tensor::uniform({7, 1}, -9.0, 9.0, 742), ops::neg(upos({1, 13}, 743))},
       plain},
      {"int64", {ints({4099}, 744), divisors({4099}, 745)}, plain},
      {"int32, transposed",
       {ints({13, 7}, 746).to(DType::I32), divisors({7, 13}, 747).to(DType::I32)},
       one([op](const auto& in) { return op(in[0].transpose(0, 1), in[1]); })},
      {"by a scalar", {Tensor::uniform({5, 7}, -9.0, 9.0, 748)}, one([scalar](const auto& in) {
         return scalar(in[0], -2.5);
       })},
  };
}

std::vector<OpCase> logical_reduction_cases(Tensor (*op)(const Tensor&, const std::vector<int64_t>&,
                                                         bool)) {
  const auto red = [op](std::vector<int64_t> dims, bool keepdim = false) {
    return one([op, dims, keepdim](const auto& in) { return op(in[0], dims, keepdim); });
  };
  // Mostly-true and mostly-false masks, so both answers occur.
  const auto often = [](const Shape& s, uint64_t seed) { return Tensor::rand(s, seed) > 0.1; };
  const auto rarely = [](const Shape& s, uint64_t seed) { return Tensor::rand(s, seed) > 0.9; };
  return {
      {"rows", {often({37, 13}, 750)}, red({1})},
      {"columns, keepdim", {rarely({13, 37}, 751)}, red({0}, true)},
      {"every dim", {mask({5, 13}, 752)}, red({})},
      {"int64 input, middle dim", {ints({3, 4, 5}, 753)}, red({1})},
      {"float32 input, transposed", {fints({13, 7}, 754)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), {1}, false);
       })},
      {"long rows", {rarely({3, 5000}, 755)}, red({1})},
      {"long rows, mostly true", {often({3, 5000}, 756)}, red({-1})},
  };
}

std::vector<OpRow> dtype_rows() {
  return {
      {"eq", [] { return compare_cases(&ops::eq, &ops::eq); }},
      {"ne", [] { return compare_cases(&ops::ne, &ops::ne); }},
      {"lt", [] { return compare_cases(&ops::lt, &ops::lt); }},
      {"le", [] { return compare_cases(&ops::le, &ops::le); }},
      {"gt", [] { return compare_cases(&ops::gt, &ops::gt); }},
      {"ge", [] { return compare_cases(&ops::ge, &ops::ge); }},
      {"logical_and", [] { return logical_cases(&ops::logical_and); }},
      {"logical_or", [] { return logical_cases(&ops::logical_or); }},
      {"logical_xor", [] { return logical_cases(&ops::logical_xor); }},
      {"logical_not", [] { return any_dtype_unary_cases(&ops::logical_not); }},
      {"isnan", [] { return any_dtype_unary_cases(&ops::isnan); }},
      {"isinf", [] { return any_dtype_unary_cases(&ops::isinf); }},
      {"floor_divide", [] { return division_cases(&ops::floor_divide, &ops::floor_divide); }},
      {"remainder", [] { return division_cases(&ops::remainder, &ops::remainder); }},
      {"masked_fill",
       [] {
         return std::vector<OpCase>{
             {"padding mask over the last dim",
              {rn({4, 6}, 760), mask({6}, 761)},
              one([](const auto& in) { return ops::masked_fill(in[0], in[1], -1e9); })},
             {"int64, same shape",
              {ints({7, 13}, 762), mask({7, 13}, 763)},
              one([](const auto& in) { return ops::masked_fill(in[0], in[1], 3.0); })},
             {"transposed input, 0-d value",
              {rn({13, 7}, 764), mask({7, 1}, 765)},
              one([](const auto& in) {
                return ops::masked_fill(in[0].transpose(0, 1), in[1], Tensor::full({}, 0.5));
              })},
             {"causal mask, batched", {rn({2, 3, 5, 5}, 766)}, one([](const auto& in) {
                const Tensor causal =
                    ops::triu(Tensor::ones({5, 5}, DType::Bool, in[0].device()), 1);
                return ops::masked_fill(in[0], causal, -1e9);
              })},
         };
       }},
      {"triu",
       [] {
         return std::vector<OpCase>{
             {"square", {rn({5, 5}, 770)}, one([](const auto& in) { return ops::triu(in[0]); })},
             {"batched, k = 1", {rn({2, 3, 4, 6}, 771)}, one([](const auto& in) {
                return ops::triu(in[0], 1);
              })},
             {"wide, k = -2, transposed", {rn({9, 4}, 772)}, one([](const auto& in) {
                return ops::triu(in[0].transpose(0, 1), -2);
              })},
             {"bool ones", {Tensor::ones({7, 7}, DType::Bool)}, one([](const auto& in) {
                return ops::triu(in[0], 1);
              })},
             {"int64", {ints({6, 3}, 773)}, one([](const auto& in) { return ops::triu(in[0]); })},
         };
       }},
      {"tril",
       [] {
         return std::vector<OpCase>{
             {"square", {rn({5, 5}, 775)}, one([](const auto& in) { return ops::tril(in[0]); })},
             {"batched, k = -1", {rn({2, 3, 6, 4}, 776)}, one([](const auto& in) {
                return ops::tril(in[0], -1);
              })},
             {"k past the corner", {rn({3, 4}, 777)}, one([](const auto& in) {
                return ops::tril(in[0], 5);
              })},
             {"int32", {ints({6, 3}, 778).to(DType::I32)}, one([](const auto& in) {
                return ops::tril(in[0]);
              })},
         };
       }},
      {"any",
       [] {
         return logical_reduction_cases([](const Tensor& x, const std::vector<int64_t>& d, bool k) {
           return ops::any(x, d, k);
         });
       }},
      {"all",
       [] {
         return logical_reduction_cases([](const Tensor& x, const std::vector<int64_t>& d, bool k) {
           return ops::all(x, d, k);
         });
       }},
      {"cumsum",
       [] {
         const auto along = [](int64_t dim) {
           return one([dim](const auto& in) { return ops::cumsum(in[0], dim); });
         };
         return std::vector<OpCase>{
             {"float32 rows", {rn({7, 13}, 780)}, along(1)},
             {"float32 columns", {rn({13, 7}, 781)}, along(0)},
             {"int64, long rows", {ints({3, 5000}, 782)}, along(-1)},
             {"bool, transposed", {mask({13, 7}, 783)}, one([](const auto& in) {
                return ops::cumsum(in[0].transpose(0, 1), 1);
              })},
             {"int32, middle dim", {ints({3, 4, 5}, 784).to(DType::I32)}, along(1)},
         };
       }},
      // Integer and bool cases of the float ops.
      {"add",
       [] {
         return std::vector<OpCase>{
             {"int64, broadcast", {ints({7, 1}, 790), ints({1, 13}, 791)}, one([](const auto& in) {
                return ops::add(in[0], in[1]);
              })},
             {"int32 plus float32",
              {ints({4099}, 792).to(DType::I32), rn({4099}, 793)},
              one([](const auto& in) { return ops::add(in[0], in[1]); })},
         };
       }},
      {"sub",
       [] {
         return std::vector<OpCase>{
             {"uint8 (wraps)",
              {ints({64}, 794).to(DType::U8), ints({64}, 795).to(DType::U8)},
              one([](const auto& in) { return ops::sub(in[0], in[1]); })},
         };
       }},
      {"mul",
       [] {
         return std::vector<OpCase>{
             {"int64, transposed",
              {ints({13, 7}, 796), ints({7, 13}, 797)},
              one([](const auto& in) { return ops::mul(in[0].transpose(0, 1), in[1]); })},
         };
       }},
      {"div",
       [] {
         return std::vector<OpCase>{
             {"int64 (true division)",
              {ints({7, 13}, 798), divisors({7, 13}, 799)},
              one([](const auto& in) { return ops::div(in[0], in[1]); })},
         };
       }},
      {"neg",
       [] {
         return std::vector<OpCase>{
             {"int64", {ints({4099}, 800)}, one([](const auto& in) { return ops::neg(in[0]); })}};
       }},
      {"abs",
       [] {
         return std::vector<OpCase>{{"int32",
                                     {ints({7, 13}, 801).to(DType::I32)},
                                     one([](const auto& in) { return ops::abs(in[0]); })}};
       }},
      {"where",
       [] {
         const auto call = one([](const auto& in) { return ops::where(in[0], in[1], in[2]); });
         return std::vector<OpCase>{
             {"bool condition, int64",
              {mask({7, 13}, 802), ints({7, 13}, 803), ints({13}, 804)},
              call},
             {"bool condition, scalar",
              {mask({4099}, 805), rn({4099}, 806)},
              one([](const auto& in) { return ops::where(in[0], in[1], -2.0); })},
             {"bool branches", {mask({6, 1}, 807), mask({6, 5}, 808), mask({5}, 809)}, call},
         };
       }},
      {"sum",
       [] {
         return std::vector<OpCase>{
             {"int64 rows", {ints({37, 513}, 810)}, one([](const auto& in) {
                return ops::sum(in[0], {1});
              })},
             {"int32 columns", {ints({513, 37}, 811).to(DType::I32)}, one([](const auto& in) {
                return ops::sum(in[0], {0}, true);
              })},
             {"bool, every dim", {mask({5, 1000}, 812)}, one([](const auto& in) {
                return ops::sum(in[0]);
              })},
         };
       }},
      {"amax",
       [] {
         return std::vector<OpCase>{
             {"int64, transposed", {ints({13, 70}, 813)}, one([](const auto& in) {
                return ops::amax(in[0].transpose(0, 1), {1});
              })}};
       }},
      {"amin",
       [] {
         return std::vector<OpCase>{{"int32, middle dim",
                                     {ints({3, 40, 5}, 814).to(DType::I32)},
                                     one([](const auto& in) { return ops::amin(in[0], {1}); })}};
       }},
      {"argmax",
       [] {
         return std::vector<OpCase>{
             {"int64 with ties", {ints({7, 300}, 815)}, one([](const auto& in) {
                return ops::argmax(in[0], 1);
              })},
             {"uint8, flattened", {ints({5, 13}, 816).to(DType::U8)}, one([](const auto& in) {
                return ops::argmax(in[0]);
              })},
         };
       }},
      {"argmin",
       [] {
         return std::vector<OpCase>{
             {"int64 with ties, columns", {ints({300, 7}, 817)}, one([](const auto& in) {
                return ops::argmin(in[0], 0, true);
              })}};
       }},
  };
}

// The table: the rows above, then issue 20's.
const std::vector<OpRow>& op_table() {
  static const std::vector<OpRow> rows = joined(base_op_table(), dtype_rows());
  return rows;
}

std::string row_name(const ::testing::TestParamInfo<size_t>& info) {
  return op_table()[info.param].op;
}

std::vector<size_t> row_indices() {
  std::vector<size_t> out;
  for (size_t i = 0; i < op_table().size(); ++i) out.push_back(i);
  return out;
}

// Outputs start as NaN where the caching allocator allows it: NaN-filled blocks of the
// outputs' sizes are freed just before the op allocates its own, so a variant that
// skips an element fails instead of passing on the previous variant's result.
void poison_cache(const std::vector<Tensor>& want, Device device) {
  std::vector<Tensor> poison;
  for (const Tensor& t : want) poison.push_back(nan_filled(t.sizes(), device));
}

// Fresh copies of a case's inputs on `device`, so that in-place updates of one run do
// not leak into the next.
std::vector<Tensor> inputs_of(const OpCase& c) {
  return c.make_inputs ? c.make_inputs() : c.inputs;
}
std::vector<Tensor> copies(const std::vector<Tensor>& inputs, Device device) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) out.push_back(device.is_cpu() ? t.clone() : t.to(device));
  return out;
}

void expect_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].sizes(), want[i].sizes()) << what << " output " << i;
    ASSERT_EQ(got[i].dtype(), want[i].dtype()) << what << " output " << i;
    if (!dtype_is_floating(want[i].dtype())) {  // indices, integers and bools: exactly
      EXPECT_EQ(got[i].to_vector<int64_t>(), want[i].to_vector<int64_t>())
          << what << " output " << i;
    } else {
      EXPECT_LE(rel_l2(got[i], want[i]), kTol) << what << " output " << i;
    }
  }
}

// ---- the CPU half ----

TEST(OpTable, CoversEveryOpOfOpsH) {
  std::ifstream header(std::string(TT_SOURCE_DIR) + "/ops/ops.h");
  ASSERT_TRUE(header.good());
  const std::regex decl(R"(^(?:Tensor|std::vector<Tensor>) ([a-z_0-9]+)\()");
  std::set<std::string> declared;
  for (std::string line; std::getline(header, line);) {
    std::smatch m;
    if (std::regex_search(line, m, decl)) declared.insert(m[1]);
  }
  ASSERT_GE(declared.size(), 10u);
  std::set<std::string> rows;
  for (const OpRow& r : op_table()) {
    EXPECT_TRUE(rows.insert(r.op).second) << r.op << " has two rows";
  }
  // Rows named with a trailing '_' are the Tensor's in-place members (core/tensor.h).
  for (const OpRow& r : op_table()) {
    if (r.op.back() != '_') {
      EXPECT_TRUE(declared.count(r.op)) << r.op << " is not an op of ops/ops.h";
    }
  }
  for (const std::string& op : declared) {
    EXPECT_TRUE(rows.count(op)) << op << " (ops/ops.h) has no row in op_table()";
  }
  size_t cases = 0;
  for (const OpRow& r : op_table()) cases += r.cases().size();
  RecordProperty("rows", static_cast<int>(op_table().size()));
  RecordProperty("cases", static_cast<int>(cases));
}

class OpTableRow : public ::testing::TestWithParam<size_t> {};

// Cases are the same every time they are built, and the CPU reference is
// deterministic and finite on them.
TEST_P(OpTableRow, CpuReferenceIsDeterministic) {
  const OpRow& row = op_table()[GetParam()];
  const std::vector<OpCase> a = row.cases(), b = row.cases();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 3u) << row.op << ": give each op at least three awkward cases";
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string what = row.op + " / " + a[i].name;
    EXPECT_EQ(a[i].name, b[i].name);
    if (a[i].large) continue;  // the same code builds them; CI time goes to the small ones
    ASSERT_EQ(a[i].inputs.size(), b[i].inputs.size()) << what;
    for (size_t j = 0; j < a[i].inputs.size(); ++j) {
      if (a[i].inputs[j].dtype() == DType::U8) {  // where's condition: bytes
        ASSERT_EQ(a[i].inputs[j].sizes(), b[i].inputs[j].sizes()) << what;
        EXPECT_EQ(std::memcmp(a[i].inputs[j].data_ptr(), b[i].inputs[j].data_ptr(),
                              static_cast<size_t>(a[i].inputs[j].numel())),
                  0)
            << what << " input " << j;
      } else {
        EXPECT_EQ(max_abs_diff(a[i].inputs[j], b[i].inputs[j]), 0.0) << what << " input " << j;
      }
    }
    const std::vector<Tensor> first = a[i].call(copies(a[i].inputs, Device::cpu()));
    const std::vector<Tensor> second = b[i].call(copies(b[i].inputs, Device::cpu()));
    ASSERT_EQ(first.size(), second.size()) << what;
    for (size_t j = 0; j < first.size(); ++j) {
      EXPECT_GT(first[j].numel(), 0) << what;
      EXPECT_EQ(max_abs_diff(first[j], second[j]), 0.0) << what << " output " << j;
      for (double v : first[j].to_vector<double>()) {
        ASSERT_TRUE(std::isfinite(v)) << what << " output " << j << " is not finite";
      }
    }
  }
}

// ---- the GPU half ----

// `run` (the case's call, or its compiled module) on fresh device copies of `inputs`
// against `want`: first with every tunable kernel at its default config, then under
// every config of the space of every tunable kernel that run looked up, one kernel at a
// time, the others at their defaults.
void expect_close_under_every_config(const Call& run, const std::vector<Tensor>& inputs,
                                     const std::vector<Tensor>& want, const std::string& what) {
  const Device gpu = Device::cuda(0);
  autotune::clear_configs_used();
  {
    autotune::ScopedForceDefaults defaults;  // no database: the defaults first
    std::vector<Tensor> in = copies(inputs, gpu);
    poison_cache(want, gpu);
    expect_close(run(in), want, what + " (default configs)");
  }
  for (const autotune::UsedConfig& used : autotune::configs_used()) {
    const autotune::TunableSpace ts = autotune::space_for(used.kernel, used.problem, 0);
    for (const autotune::Config& config : ts.space->enumerate()) {
      autotune::ScopedForceDefaults defaults;
      autotune::ScopedConfigOverride force(used.kernel, config, used.problem);
      std::vector<Tensor> in = copies(inputs, gpu);
      poison_cache(want, gpu);
      expect_close(run(in), want, what + " (" + used.kernel + " " + config.str() + ")");
    }
  }
}

TEST_P(OpTableRow, CudaMatchesCpuUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  const OpRow& row = op_table()[GetParam()];
  const bool small_only = std::getenv("TT_OP_TABLE_SMALL") != nullptr;
  for (const OpCase& c : row.cases()) {
    if (small_only && c.large) continue;
    const std::vector<Tensor> inputs = inputs_of(c);
    expect_close_under_every_config(c.call, inputs, c.call(copies(inputs, Device::cpu())),
                                    row.op + " / " + c.name);
  }
}

// Every case through tt::compile (its first call records, the second replays): on the
// CPU the replay is the eager result bit for bit; on CUDA the replay (fused groups where
// the case has them) agrees with the CPU reference as the op itself must.
// c compiled on the CPU, called twice (records, then replays op by op): both calls give
// `want`, the eager result, bit for bit.
std::shared_ptr<CompiledModule> expect_cpu_replay_is_eager(const OpCase& c,
                                                           const std::vector<Tensor>& want,
                                                           const std::string& what) {
  auto compiled = compile(std::make_shared<FnModule>(c.call));
  for (int round = 0; round < 2; ++round) {
    const std::vector<Tensor> got = (*compiled)(copies(c.inputs, Device::cpu()));
    EXPECT_EQ(got.size(), want.size()) << what;
    for (size_t j = 0; j < got.size() && j < want.size(); ++j)
      EXPECT_EQ(max_abs_diff(got[j], want[j]), 0.0) << what << " output " << j;
  }
  return compiled;
}

TEST_P(OpTableRow, CompiledMatchesEager) {
  const OpRow& row = op_table()[GetParam()];
  for (const OpCase& c : row.cases()) {
    if (c.large) continue;
    const std::string what = row.op + " / " + c.name;
    const std::vector<Tensor> want = c.call(copies(c.inputs, Device::cpu()));
    const auto compiled = expect_cpu_replay_is_eager(c, want, what);
    // Every op is captured: only the in-place members (writes into an input) break.
    if (row.op.back() != '_') {
      EXPECT_EQ(compiled->explain().find("graph break"), std::string::npos) << what << ":\n"
                                                                            << compiled->explain();
    }
    if (!cuda_available()) continue;
    auto on_gpu = compile(std::make_shared<FnModule>(c.call));
    for (int round = 0; round < 2; ++round) {
      expect_close((*on_gpu)(copies(c.inputs, Device::cuda(0))), want,
                   what + " (compiled, call " + std::to_string(round) + ")");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpTableRow, ::testing::ValuesIn(row_indices()), row_name);

// ---- the seed models' fused GEMM groups (issue 22) ----
// The cases of the fused ops that retired into the compiler (gemm_bias_relu and
// friends), each call now the seed's plain-op forward (support/seed_forwards.h), which
// tt::compile runs on CUDA as one plan of the fused family. On the CPU the compiled
// replay is the eager forward bit for bit; on CUDA the compiled replay must run the
// group fused and agree with the CPU reference under the default configs and under
// every config of every kernel the replay looked up (the group's GEMM stage and passes,
// by their structural names), one at a time, as an op's row does.

namespace forwards = tt::test::seed;

const std::vector<OpRow>& fused_group_table() {
  static const std::vector<OpRow> rows = {
      {"relu(linear + bias)",
       [] {
         const auto call =
             one([](const auto& in) { return forwards::bias_relu(in[0], in[1], in[2]); });
         return std::vector<OpCase>{
             {"one row", {rn({1, 5}, 100), rn({7, 5}, 101), rn({7}, 102)}, call},
             {"odd sizes", {rn({13, 37}, 103), rn({29, 37}, 104), rn({29}, 105)}, call},
             {"just above a tile", {rn({129, 64}, 106), rn({130, 64}, 107), rn({130}, 108)}, call},
             {"non-contiguous input",
              {rn({37, 13}, 109), rn({29, 37}, 110), rn({29}, 111)},
              one([](const auto& in) {
                return forwards::bias_relu(in[0].transpose(0, 1), in[1], in[2]);
              })},
         };
       }},
      {"group_norm(swish(linear) + bias)",
       [] {
         const auto call = [](int64_t groups) {
           return one([groups](const auto& in) {
             return forwards::swish_bias_group_norm(in[0], in[1], in[2], in[3], groups, in[4],
                                                    in[5]);
           });
         };
         const auto inputs = [](int64_t m, int64_t n, int64_t k, uint64_t seed) {
           return std::vector<Tensor>{rn({m, k}, seed),  rn({n, k}, seed + 1), rn({n}, seed + 2),
                                      rn({n}, seed + 3), rn({n}, seed + 4),    rn({n}, seed + 5)};
         };
         return std::vector<OpCase>{
             {"groups of 16", inputs(16, 80, 64, 120), call(5)},
             {"odd rows and K, groups of 8", inputs(7, 64, 33, 130), call(8)},
             {"just above a tile, groups of 32", inputs(129, 128, 40, 140), call(4)},
             {"one row, one channel per group", inputs(1, 6, 5, 150), call(6)},
             {"one group", inputs(4, 12, 7, 155), call(1)},
             {"groups just above a block", inputs(3, 260, 9, 160), call(2)},
             large(
                 "groups of 64", [=] { return inputs(33, 4096, 8, 165); }, call(64)),
         };
       }},
      {"batch_norm(linear * scale)",
       [] {
         const auto call = [](bool training) {
           return Call([training](const std::vector<Tensor>& in) {
             const Tensor out = forwards::scale_batch_norm(in[0], in[1], in[2], in[3], in[4], in[5],
                                                           in[6], in[7], training);
             return std::vector<Tensor>{out, in[4], in[5]};  // running stats updated in place
           });
         };
         const auto inputs = [](int64_t m, int64_t n, int64_t k, uint64_t seed) {
           return std::vector<Tensor>{rn({m, k}, seed),  rn({n, k}, seed + 1), rn({n}, seed + 2),
                                      rn({n}, seed + 3), rn({n}, seed + 4),    pos({n}, seed + 5),
                                      rn({n}, seed + 6), rn({n}, seed + 7)};
         };
         return std::vector<OpCase>{
             {"odd sizes, training", inputs(7, 6, 13, 160), call(true)},
             {"odd sizes, eval", inputs(7, 6, 13, 170), call(false)},
             {"just above a tile, training", inputs(257, 130, 20, 180), call(true)},
             {"just above a tile, eval", inputs(129, 72, 40, 190), call(false)},
             {"two rows, training", inputs(2, 6, 5, 195), call(true)},
             {"a chunk and a column block just exceeded, eval", inputs(257, 130, 7, 197),
              call(false)},
             large(
                 "wide, training", [=] { return inputs(1000, 4096, 8, 198); }, call(true)),
             large(
                 "wide, eval", [=] { return inputs(1000, 4096, 8, 199); }, call(false)),
         };
       }},
      {"(instance_norm(linear) + y) * y",
       [] {
         const auto call = one([](const auto& in) {
           return forwards::instance_norm_add_mul(in[0], in[1], in[2], in[3]);
         });
         const auto inputs = [](int64_t m, int64_t n, int64_t k, uint64_t seed) {
           return std::vector<Tensor>{rn({m, k}, seed), rn({m, n}, seed + 1), rn({n, k}, seed + 2),
                                      rn({n}, seed + 3)};
         };
         return std::vector<OpCase>{
             {"one row", inputs(1, 7, 5, 200), call},
             {"odd sizes", inputs(13, 29, 37, 210), call},
             {"just above a tile", inputs(129, 130, 64, 220), call},
             {"one row of 64", inputs(1, 64, 8, 230), call},
             {"rows just above 8192", inputs(3, 8200, 8, 240), call},
             large(
                 "rows of 8192", [=] { return inputs(16, 8192, 8, 250); }, call),
         };
       }},
  };
  return rows;
}

class FusedGroupRow : public ::testing::TestWithParam<size_t> {};

TEST_P(FusedGroupRow, CompiledOnCpuIsTheEagerForward) {
  const OpRow& row = fused_group_table()[GetParam()];
  for (const OpCase& c : row.cases()) {
    if (c.large) continue;
    const std::string what = row.op + " / " + c.name;
    const auto compiled =
        expect_cpu_replay_is_eager(c, c.call(copies(c.inputs, Device::cpu())), what);
    EXPECT_EQ(compiled->explain().find("graph break"), std::string::npos) << what << ":\n"
                                                                          << compiled->explain();
  }
}

TEST_P(FusedGroupRow, CompiledOnCudaMatchesCpuUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  const OpRow& row = fused_group_table()[GetParam()];
  const bool small_only = std::getenv("TT_OP_TABLE_SMALL") != nullptr;
  for (const OpCase& c : row.cases()) {
    if (small_only && c.large) continue;
    const std::string what = row.op + " / " + c.name;
    const std::vector<Tensor> inputs = inputs_of(c);
    auto compiled = compile(std::make_shared<FnModule>(c.call));
    (*compiled)(copies(inputs, Device::cuda(0)));  // records (eagerly) and compiles
    const std::string report = compiled->explain();
    EXPECT_TRUE(report.find("fused plan") != std::string::npos ||
                report.find("(tuned as gemm[") != std::string::npos)
        << what << ":\n"
        << report;
    expect_close_under_every_config([&](const std::vector<Tensor>& in) { return (*compiled)(in); },
                                    inputs, c.call(copies(inputs, Device::cpu())), what);
  }
}

// The instantiations' names, row by row: the seed model each group is.
const char* const fused_group_names[] = {"GemmBiasReLU", "GemmSwishBiasGroupNorm",
                                         "GemmScaleBatchNorm", "GemmInstanceNormAddMul"};

std::vector<size_t> fused_group_indices() {
  std::vector<size_t> out;
  for (size_t i = 0; i < fused_group_table().size(); ++i) out.push_back(i);
  return out;
}

INSTANTIATE_TEST_SUITE_P(SeedGroups, FusedGroupRow, ::testing::ValuesIn(fused_group_indices()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(fused_group_names[info.param]);
                         });

}  // namespace
}  // namespace tt::test
