// Issue 9's op table: every op of the user-facing API as rows of cases, each run on
// the CPU reference and on CUDA and compared (relative L2 <= 1e-5; integer results
// and shape ops exactly), with broadcast, transposed (strided) and sliced operands.
// The pointwise family also runs under every config of its tunable space. The rows
// live in support/user_op_rows.h, which op_table_test also reads for its coverage
// check of ops/ops.h.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"
#if TT_CUDA
#include "ops/cuda/pointwise/pointwise_space.h"
#endif
#include "support/user_op_rows.h"

namespace tt {
namespace {

using test::user_op_rows::inputs_of;
using test::user_op_rows::Row;
using test::user_op_rows::rows;

void expect_same(const Tensor& cuda_out, const Tensor& cpu_out) {
  EXPECT_EQ(cuda_out.sizes(), cpu_out.sizes());
  EXPECT_EQ(cuda_out.dtype(), cpu_out.dtype());
  EXPECT_TRUE(cuda_out.device().is_cuda());
  if (cpu_out.dtype() == DType::I64) {
    EXPECT_EQ(cuda_out.to_vector<int64_t>(), cpu_out.to_vector<int64_t>());
  } else {
    EXPECT_LE(test::rel_l2(cuda_out, cpu_out), 1e-5);
  }
}

TEST(OpTableOps, EveryRowRunsOnTheCpu) {
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    const Tensor out = row.fn(inputs_of(row));
    EXPECT_TRUE(out.device().is_cpu());
    EXPECT_TRUE(out.is_contiguous());
  }
}

TEST(OpTableOps, CudaMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  int cases = 0;
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    const std::vector<Tensor> in = inputs_of(row);
    std::vector<Tensor> in_cuda;
    for (const Tensor& t : in) {
      // Transposed inputs stay transposed views on the device.
      const bool t_view = t.dim() >= 2 && !t.is_contiguous();
      in_cuda.push_back(t_view
                            ? t.transpose(-1, -2).contiguous().to(Device::cuda(0)).transpose(-1, -2)
                            : t.to(Device::cuda(0)));
    }
    expect_same(row.fn(in_cuda), row.fn(in));
    ++cases;
  }
  EXPECT_EQ(cases, static_cast<int>(rows().size()));
}

#if TT_CUDA
// Every config of the pointwise family's space gives the reference's result, for a
// flat problem with a ragged tail, a misaligned (sliced) one, and a strided one.
TEST(OpTableOps, PointwiseFamilyUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor a = Tensor::randn({4099}, 1), b = Tensor::randn({4099}, 2);
  const Tensor m = Tensor::randn({33, 65}, 3);
  struct Case {
    const char* kernel;
    std::function<Tensor(Device)> run;
  };
  const std::vector<Case> cases = {
      {"pointwise.add", [&](Device d) { return ops::add(a.to(d), b.to(d)); }},
      {"pointwise.gelu", [&](Device d) { return ops::gelu(a.to(d).narrow(0, 1, 4097)); }},
      {"pointwise.mul",
       [&](Device d) { return ops::mul(m.to(d).transpose(0, 1), m.to(d).select(1, 2)); }},
  };
  namespace pointwise_tuning = ops::cuda::pointwise_tuning;
  using pointwise_tuning::Layout;
  for (const Case& c : cases) {
    const Tensor want = c.run(Device::cpu());
    int configs = 0;
    for (Layout layout : {Layout::kFlat, Layout::kStrided}) {
      for (int threads : {128, 256, 512})
        for (int vec : {1, 2, 4})
          for (int items : {1, 2, 4}) {
            pointwise_tuning::PointwiseConfig cfg;
            cfg.layout = layout;
            cfg.threads = threads;
            cfg.vec = layout == Layout::kFlat ? vec : 1;
            cfg.items = items;
            if (layout == Layout::kStrided && vec != 1) continue;
            const autotune::Config config = pointwise_tuning::descriptor().to_config(cfg);
            SCOPED_TRACE(std::string(c.kernel) + " " + config.str());
            autotune::ScopedConfigOverride force(c.kernel, config);
            try {
              EXPECT_LE(test::rel_l2(c.run(gpu), want), 1e-6);
              ++configs;
            } catch (const Error& e) {
              // The space rejects configs of the other layout and vectors wider than
              // the alignment; the override reports those as errors.
              EXPECT_NE(std::string(e.what()).find("is rejected"), std::string::npos) << e.what();
            }
          }
    }
    EXPECT_GE(configs, 9) << c.kernel;
  }
}
#endif

}  // namespace
}  // namespace tt
