// NCCL process groups on the GPUs of this host (issue 23); skipped without a GPU. One
// GPU: a group of one rank through a FileStore and init_local({0}) (collectives are
// copies, the checks are sentences). Two GPUs: init_local over both, every
// collective inside one GroupCall, exact results. (Several processes: the launcher
// runs tools/device/dist_harness, see tools/device/dist_check.sh.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "distributed/distributed.h"
#include "support/test_util.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt::distributed {
namespace {

using ::testing::HasSubstr;
using tt::test::error_of;

int gpu_count() {
#if TT_CUDA
  return tt::test::cuda_available() ? tt::cuda::device_count() : 0;
#else
  return 0;
#endif
}

TEST(Nccl, OneRankGroupThroughAFileStore) {
  TT_REQUIRE_CUDA();
  const std::string path = fmt::format("/tmp/tt_nccl_test_{}", static_cast<long>(::getpid()));
  auto g = init(0, 1, std::make_shared<FileStore>(path), Device::cuda(0));
  EXPECT_EQ(g->describe(), "rank 0 of 1 on cuda:0");
  const Tensor t = Tensor::arange(8).to(DType::F32).to(Device::cuda(0));
  g->all_reduce(t);
  g->all_reduce(t, ReduceOp::Max);
  const Tensor out = Tensor::zeros({8}, DType::F32, Device::cuda(0));
  g->all_gather_into_tensor(out, t);
  g->broadcast(t, 0);
  g->barrier();
  EXPECT_EQ(out.cpu().to_vector<float>(), std::vector<float>({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(error_of([&] { g->all_reduce(Tensor::zeros({4})); }),
            "all_reduce expects its input tensor on cuda:0 (the device of rank 0 of 1 on cuda:0), "
            "but got one on cpu.");
  destroy();
  ::unlink(path.c_str());
}

TEST(Nccl, LocalGroupsOverEveryGpu) {
  const int n = gpu_count();
  if (n < 2) GTEST_SKIP() << "needs 2 CUDA devices, this machine has " << n;
  auto groups = init_local();
  ASSERT_EQ(static_cast<int>(groups.size()), n);
  std::vector<Tensor> sum, mx, gathered, mine, rs_in, rs_out, bc;
  for (int r = 0; r < n; ++r) {
    const Device d = Device::cuda(r);
    sum.push_back(Tensor::full({1024}, r + 1, DType::F32, d));
    mx.push_back(Tensor::full({1024}, r, DType::F32, d));
    mine.push_back(Tensor::full({4}, 10 * r, DType::F32, d));
    gathered.push_back(Tensor::zeros({4 * n}, DType::F32, d));
    rs_in.push_back(Tensor::arange(2 * n).to(DType::F32).to(d));
    rs_out.push_back(Tensor::zeros({2}, DType::F32, d));
    bc.push_back(Tensor::full({16}, r == 1 ? 5.0 : 0.0, DType::F32, d));
  }
  {
    GroupCall call;
    for (int r = 0; r < n; ++r) {
      auto& g = *groups[static_cast<size_t>(r)];
      const size_t i = static_cast<size_t>(r);
      g.all_reduce(sum[i]);
      g.all_reduce(mx[i], ReduceOp::Max);
      g.all_gather_into_tensor(gathered[i], mine[i]);
      g.reduce_scatter(rs_out[i], rs_in[i]);
      g.broadcast(bc[i], 1);
    }
  }
  for (int r = 0; r < n; ++r) {
    const size_t i = static_cast<size_t>(r);
    groups[i]->synchronize();
    EXPECT_EQ(sum[i].cpu().to_vector<float>()[1023], static_cast<float>(n * (n + 1) / 2));
    EXPECT_EQ(mx[i].cpu().to_vector<float>()[0], static_cast<float>(n - 1));
    EXPECT_EQ(gathered[i].cpu().to_vector<float>()[4 * (n - 1)], 10.0f * (n - 1));
    EXPECT_EQ(
        rs_out[i].cpu().to_vector<float>(),
        std::vector<float>({static_cast<float>(n * 2 * r), static_cast<float>(n * (2 * r + 1))}));
    EXPECT_EQ(bc[i].cpu().to_vector<float>()[15], 5.0f);
  }
}

}  // namespace
}  // namespace tt::distributed
