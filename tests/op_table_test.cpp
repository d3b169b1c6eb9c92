// One table of every op of ops/ops.h with its cases, and one generic test over it (as
// ggml's test-backend-ops and PyTorch's OpInfo): each case runs on the CPU reference
// and on CUDA, first with every tunable kernel at its default config, then under
// every config of the space of every tunable kernel the op launched (one kernel
// swept at a time, the others at their defaults), and the outputs (and the buffers an
// op updates in place) must agree to relative L2 1e-5 (strict float32).
//
// This folds in the per-family "every config" tests (segment norm, the row-norm and
// group-norm passes, batch norm's column passes): their shapes are cases here, and
// the configs swept are the spaces' (the launchers' candidates, less what the device
// cannot run). Adding an op adds a row to op_table() (OpTable.CoversEveryOpOfOpsH fails until it
// has one). Cases are awkward on purpose: one row, odd sizes, sizes just above a tile,
// non-contiguous views (made inside `call`, so the same view is taken on each
// device), broadcasting. The CPU half (case construction, determinism of the
// reference, the coverage of ops.h) runs without a GPU; the GPU half skips cleanly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/space_cache.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"
#include "support/user_op_rows.h"

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

using Call = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
Call one(std::function<Tensor(const std::vector<Tensor>&)> f) {
  return [f](const std::vector<Tensor>& in) { return std::vector<Tensor>{f(in)}; };
}

std::vector<OpCase> binary_cases(Tensor (*op)(const Tensor&, const Tensor&)) {
  const auto plain = one([op](const auto& in) { return op(in[0], in[1]); });
  return {
      {"same shape, odd sizes", {rn({7, 13}, 1), rn({7, 13}, 2)}, plain},
      {"one element", {rn({1}, 3), rn({1}, 4)}, plain},
      {"broadcast rows and columns", {rn({7, 1}, 5), rn({1, 13}, 6)}, plain},
      {"broadcast rank", {rn({3, 1, 5}, 7), rn({4, 5}, 8)}, plain},
      {"non-contiguous", {rn({13, 7}, 9), rn({7, 13}, 10)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1), in[1]);
       })},
  };
}

std::vector<OpCase> unary_cases(Tensor (*op)(const Tensor&)) {
  const auto plain = one([op](const auto& in) { return op(in[0]); });
  return {
      {"one element", {rn({1}, 11)}, plain},
      {"odd sizes", {rn({7, 13}, 12)}, plain},
      {"rank 4", {rn({2, 3, 5, 7}, 13)}, plain},
      {"non-contiguous", {rn({13, 7}, 14)}, one([op](const auto& in) {
         return op(in[0].transpose(0, 1));
       })},
  };
}

// The table: one row per op of ops.h.
const std::vector<OpRow>& op_table() {
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
      {"add", [] { return binary_cases(&ops::add); }},
      {"sub", [] { return binary_cases(&ops::sub); }},
      {"mul", [] { return binary_cases(&ops::mul); }},
      {"relu", [] { return unary_cases(&ops::relu); }},
      {"sigmoid", [] { return unary_cases(&ops::sigmoid); }},
      {"swish", [] { return unary_cases(&ops::swish); }},
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
      {"gemm_bias_relu",
       [] {
         const auto call =
             one([](const auto& in) { return ops::gemm_bias_relu(in[0], in[1], in[2]); });
         return std::vector<OpCase>{
             {"one row", {rn({1, 5}, 100), rn({7, 5}, 101), rn({7}, 102)}, call},
             {"odd sizes", {rn({13, 37}, 103), rn({29, 37}, 104), rn({29}, 105)}, call},
             {"just above a tile", {rn({129, 64}, 106), rn({130, 64}, 107), rn({130}, 108)}, call},
             {"non-contiguous input",
              {rn({37, 13}, 109), rn({29, 37}, 110), rn({29}, 111)},
              one([](const auto& in) {
                return ops::gemm_bias_relu(in[0].transpose(0, 1), in[1], in[2]);
              })},
         };
       }},
      {"gemm_swish_bias_group_norm",
       [] {
         const auto call = [](int64_t groups) {
           return one([groups](const auto& in) {
             return ops::gemm_swish_bias_group_norm(in[0], in[1], in[2], in[3], groups, in[4],
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
      {"gemm_scale_batch_norm",
       [] {
         const auto call = [](bool training) {
           return Call([training](const std::vector<Tensor>& in) {
             const Tensor out = ops::gemm_scale_batch_norm(in[0], in[1], in[2], in[3], in[4], in[5],
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
      {"gemm_instance_norm_add_mul",
       [] {
         const auto call = one([](const auto& in) {
           return ops::gemm_instance_norm_add_mul(in[0], in[1], in[2], in[3]);
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
    EXPECT_LE(rel_l2(got[i], want[i]), kTol) << what << " output " << i;
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
    EXPECT_TRUE(declared.count(r.op)) << r.op << " is not an op of ops/ops.h";
  }
  // Issue 9's ops have their rows in support/user_op_rows.h (run by op_rows_ops_test);
  // rows named with a trailing '_' are the Tensor's in-place members (core/tensor.h).
  std::set<std::string> user_rows;
  for (const user_op_rows::Row& r : user_op_rows::rows()) {
    const std::string op = r.name.substr(0, r.name.find_first_of("( "));  // "add(scalar)"
    const bool member = op.back() == '_';
    EXPECT_TRUE(member || declared.count(op)) << r.name << " is not an op of ops/ops.h";
    if (!member) user_rows.insert(op);
  }
  for (const std::string& op : declared) {
    EXPECT_TRUE(rows.count(op) || user_rows.count(op))
        << op << " (ops/ops.h) has no row in op_table() or support/user_op_rows.h";
  }
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
      EXPECT_EQ(max_abs_diff(a[i].inputs[j], b[i].inputs[j]), 0.0) << what << " input " << j;
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

TEST_P(OpTableRow, CudaMatchesCpuUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  const OpRow& row = op_table()[GetParam()];
  const Device gpu = Device::cuda(0);
  const bool small_only = std::getenv("TT_OP_TABLE_SMALL") != nullptr;
  for (const OpCase& c : row.cases()) {
    if (small_only && c.large) continue;
    const std::string what = row.op + " / " + c.name;
    const std::vector<Tensor> inputs = inputs_of(c);
    const std::vector<Tensor> want = c.call(copies(inputs, Device::cpu()));
    autotune::clear_configs_used();
    {
      autotune::ScopedForceDefaults defaults;  // no database: the defaults first
      std::vector<Tensor> in = copies(inputs, gpu);
      poison_cache(want, gpu);
      expect_close(c.call(in), want, what + " (default configs)");
    }
    // Every config of every tunable kernel the op launched, one kernel at a time.
    for (const autotune::UsedConfig& used : autotune::configs_used()) {
      const autotune::TunableSpace ts = autotune::space_for(used.kernel, used.problem, 0);
      for (const autotune::Config& config : ts.space->enumerate()) {
        autotune::ScopedForceDefaults defaults;
        autotune::ScopedConfigOverride force(used.kernel, config, used.problem);
        std::vector<Tensor> in = copies(inputs, gpu);
        poison_cache(want, gpu);
        expect_close(c.call(in), want, what + " (" + used.kernel + " " + config.str() + ")");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpTableRow, ::testing::ValuesIn(row_indices()), row_name);

}  // namespace
}  // namespace tt::test
