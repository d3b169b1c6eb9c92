// The programs of the distributed checks (issue 23), one mode per argument, each
// started under `tt launch -n N` (or torchrun) unless it says otherwise:
//   env [--cpu]          every rank meets through a TCPStore, checks its variables and
//                        the others' keys, and passes two barriers (CPU tests use it)
//   fail RANK CODE       rank RANK exits with CODE after the first barrier; the others
//                        wait for the launcher to stop them
//   collectives          all_reduce (sum, max, int64), all_gather (tensor and list),
//                        reduce_scatter, broadcast: exact results; a CPU tensor refused
//   timeout              rank 0 calls all_reduce alone: it must end in the timeout
//                        sentence (set TT_DIST_TIMEOUT_S small), never hang
//   local                the single-process form over every local GPU (no launcher)
//   allreduce MB ITERS   median bus bandwidth of an in-place float32 all_reduce
// Each mode prints "<mode> ok" on success and exits 1 with the reason otherwise.
#include <tensortune/tensortune.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/distributed.h"
#if TT_CUDA
#include <cuda_runtime_api.h>

#include "core/cuda/event_timer.h"
#include "core/cuda/stream.h"
#endif

namespace dist = tt::distributed;
using tt::Tensor;

namespace {

#define EXPECT_TRUE_OR_FAIL(cond, ...) \
  TT_CHECK(cond, "check failed: {}: {}", #cond, fmt::format(__VA_ARGS__))

std::shared_ptr<dist::ProcessGroup> init_with_store(bool cpu) {
  const dist::LaunchEnv env = dist::read_launch_env();
  dist::InitOptions options;
  options.store = std::make_shared<dist::TCPStore>(env.master_addr, env.master_port, env.rank == 0);
  if (cpu) options.device = tt::Device::cpu();
  return dist::init(options);
}

int mode_env(bool cpu) {
  const dist::LaunchEnv env = dist::read_launch_env();
  auto store = std::make_shared<dist::TCPStore>(env.master_addr, env.master_port, env.rank == 0);
  dist::InitOptions options;
  options.store = store;
  if (cpu) options.device = tt::Device::cpu();
  auto g = dist::init(options);
  EXPECT_TRUE_OR_FAIL(g->rank() == env.rank && g->size() == env.world_size, "{}", g->describe());
  EXPECT_TRUE_OR_FAIL(env.local_rank == env.rank, "LOCAL_RANK {} RANK {}", env.local_rank,
                      env.rank);
  store->set("hello/" + std::to_string(env.rank), std::to_string(env.rank * 10));
  for (int r = 0; r < env.world_size; ++r) {
    const std::string v = store->get("hello/" + std::to_string(r));
    EXPECT_TRUE_OR_FAIL(v == std::to_string(r * 10), "rank {} read '{}'", r, v);
  }
  g->barrier();
  EXPECT_TRUE_OR_FAIL(store->add("count", 1) <= env.world_size, "more ranks than WORLD_SIZE");
  g->barrier();
  std::printf("rank %d of %d on %s: env ok\n", g->rank(), g->size(), g->device().str().c_str());
  // destroy() says goodbye through the store, so rank 0's server outlives every client.
  dist::destroy();
  return 0;
}

int mode_fail(int rank, int code) {
  auto g = init_with_store(true);
  g->barrier();
  if (g->rank() == rank) {
    std::fprintf(stderr, "rank %d fails on purpose with code %d\n", rank, code);
    std::_Exit(code);
  }
  std::printf("rank %d waits to be stopped\n", g->rank());
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(120));
  return 0;
}

#if TT_CUDA
std::vector<float> iota(int64_t n, float scale, float offset) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = scale * static_cast<float>(i) + offset;
  return v;
}

// The collectives of one rank against values every rank can compute.
void check_collectives(dist::ProcessGroup& g,
                       const std::function<void(std::function<void()>)>& run) {
  const int r = g.rank(), w = g.size();
  const tt::Device dev = g.device();
  const int64_t n = 1000;
  Tensor sum = Tensor::from_vector(iota(n, static_cast<float>(r + 1), 0), {n}).to(dev);
  Tensor mx = Tensor::from_vector(iota(n, 1, static_cast<float>(r)), {n}).to(dev);
  Tensor i64 = Tensor::full({n}, static_cast<double>(int64_t{1} << 40) + r, tt::DType::I64, dev);
  Tensor gathered = Tensor::zeros({w * n}, tt::DType::F32, dev);
  Tensor mine = Tensor::from_vector(iota(n, 1, 100.0f * r), {n}).to(dev);
  Tensor rs_in = Tensor::from_vector(iota(w * n, 1, static_cast<float>(r)), {w * n}).to(dev);
  Tensor rs_out = Tensor::zeros({n}, tt::DType::F32, dev);
  Tensor bc = Tensor::full({n}, r == w - 1 ? 7.0 : -1.0, tt::DType::F32, dev);
  run([&] {
    g.all_reduce(sum, dist::ReduceOp::Sum);
    g.all_reduce(mx, dist::ReduceOp::Max);
    g.all_reduce(i64, dist::ReduceOp::Sum);
    g.all_gather_into_tensor(gathered, mine);
    g.reduce_scatter(rs_out, rs_in, dist::ReduceOp::Sum);
    g.broadcast(bc, w - 1);
  });
  g.synchronize();
  const float ranks_sum = static_cast<float>(w * (w + 1) / 2);
  const auto s = sum.cpu().to_vector<float>();
  const auto m = mx.cpu().to_vector<float>();
  const auto gv = gathered.cpu().to_vector<float>();
  const auto rv = rs_out.cpu().to_vector<float>();
  const auto bv = bc.cpu().to_vector<float>();
  const auto iv = i64.cpu().to_vector<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    EXPECT_TRUE_OR_FAIL(s[k] == ranks_sum * static_cast<float>(i), "sum[{}] = {}", i, s[k]);
    EXPECT_TRUE_OR_FAIL(m[k] == static_cast<float>(i + w - 1), "max[{}] = {}", i, m[k]);
    EXPECT_TRUE_OR_FAIL(iv[k] == w * (int64_t{1} << 40) + w * (w - 1) / 2, "int64[{}] = {}", i,
                        iv[k]);
    for (int q = 0; q < w; ++q)
      EXPECT_TRUE_OR_FAIL(gv[static_cast<size_t>(q * n + i)] == static_cast<float>(i) + 100.0f * q,
                          "gather[{}][{}]", q, i);
    // Block r of every rank's input: element r*n + i + rank, summed over ranks.
    const float expect = static_cast<float>(w * (r * n + i)) + static_cast<float>(w * (w - 1) / 2);
    EXPECT_TRUE_OR_FAIL(rv[k] == expect, "reduce_scatter[{}] = {} (expected {})", i, rv[k], expect);
    EXPECT_TRUE_OR_FAIL(bv[k] == 7.0f, "broadcast[{}] = {}", i, bv[k]);
  }
}

int mode_collectives() {
  auto g = dist::init();
  check_collectives(*g, [](const std::function<void()>& f) { f(); });
  const auto parts = g->all_gather(Tensor::full({3}, g->rank(), tt::DType::F32, g->device()));
  for (int q = 0; q < g->size(); ++q)
    EXPECT_TRUE_OR_FAIL(parts[static_cast<size_t>(q)].cpu().to_vector<float>()[2] == q,
                        "all_gather list part {}", q);
  std::string refused;
  try {
    g->all_reduce(Tensor::zeros({4}));
  } catch (const tt::Error& e) {
    refused = e.what();
  }
  EXPECT_TRUE_OR_FAIL(refused.find("expects its input tensor on cuda:") != std::string::npos,
                      "a CPU tensor gave '{}'", refused);
  g->barrier();
  std::printf("rank %d of %d on %s: collectives ok\n", g->rank(), g->size(),
              g->device().str().c_str());
  dist::destroy();
  return 0;
}

int mode_timeout() {
  auto g = dist::init();
  g->barrier();
  if (g->rank() != 0) {
    // Never joins rank 0's all_reduce; leaves without tearing NCCL down in order.
    std::this_thread::sleep_for(g->timeout() * 3);
    std::printf("rank %d: timeout ok (stayed away)\n", g->rank());
    std::fflush(stdout);
    std::_Exit(0);
  }
  Tensor t = Tensor::ones({1 << 20}, tt::DType::F32, g->device());
  std::string message;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    g->all_reduce(t);
    g->synchronize();
  } catch (const tt::Error& e) {
    message = e.what();
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank 0 got after %.1f s: %s\n", waited, message.c_str());
  EXPECT_TRUE_OR_FAIL(message.find("did not finish within") != std::string::npos,
                      "expected the timeout sentence");
  std::string again;
  try {
    g->all_reduce(t);
  } catch (const tt::Error& e) {
    again = e.what();
  }
  EXPECT_TRUE_OR_FAIL(again.find("unusable after an earlier error") != std::string::npos,
                      "the next call gave '{}'", again);
  std::printf("rank 0: timeout ok\n");
  std::fflush(stdout);
  std::_Exit(0);
}

int mode_local() {
  auto groups = dist::init_local();
  // One host thread drives every device: the calls of all groups sit in one GroupCall.
  const int w = static_cast<int>(groups.size());
  std::vector<Tensor> ts;
  for (int r = 0; r < w; ++r)
    ts.push_back(
        Tensor::full({1 << 16}, r + 1, tt::DType::F32, groups[static_cast<size_t>(r)]->device()));
  {
    dist::GroupCall call;
    for (int r = 0; r < w; ++r)
      groups[static_cast<size_t>(r)]->all_reduce(ts[static_cast<size_t>(r)]);
  }
  for (int r = 0; r < w; ++r) {
    groups[static_cast<size_t>(r)]->synchronize();
    const auto v = ts[static_cast<size_t>(r)].cpu().to_vector<float>();
    EXPECT_TRUE_OR_FAIL(v.front() == w * (w + 1) / 2 && v.back() == w * (w + 1) / 2,
                        "device {} holds {}", r, v.front());
  }
  std::printf("local: %d devices, all_reduce in one GroupCall: local ok\n", w);
  return 0;
}

int mode_allreduce(double megabytes, int iters) {
  auto g = dist::init();
  const int64_t n = static_cast<int64_t>(megabytes * 1e6 / 4);
  Tensor t = Tensor::ones({n}, tt::DType::F32, g->device());
  cudaStream_t s = tt::cuda::stream(g->device().index);
  for (int i = 0; i < 5; ++i) g->all_reduce(t);  // warm-up: NCCL's connections and buffers
  g->synchronize();
  tt::cuda::EventTimer timer;
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    ms.push_back(timer.time([&] { g->all_reduce(t); }, s, {}, 0, [&] { g->synchronize(); }));
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  const double bytes = static_cast<double>(n) * 4;
  const double algbw = bytes / (med * 1e-3) / 1e9;
  const double busbw = algbw * 2.0 * (g->size() - 1) / g->size();
  if (g->rank() == 0)
    std::printf(
        "allreduce tensortune bytes=%.0f ranks=%d median_ms=%.3f algbw_GBps=%.1f "
        "busbw_GBps=%.1f\n",
        bytes, g->size(), med, algbw, busbw);
  g->barrier();
  dist::destroy();
  return 0;
}
#endif

int usage() {
  std::fprintf(stderr,
               "usage: dist_harness env [--cpu] | fail RANK CODE | collectives | timeout | local "
               "| allreduce MB ITERS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string mode = argv[1];
  try {
    if (mode == "env") return mode_env(argc > 2 && std::string(argv[2]) == "--cpu");
    if (mode == "fail" && argc == 4) return mode_fail(std::atoi(argv[2]), std::atoi(argv[3]));
#if TT_CUDA
    if (mode == "collectives") return mode_collectives();
    if (mode == "timeout") return mode_timeout();
    if (mode == "local") return mode_local();
    if (mode == "allreduce" && argc == 4)
      return mode_allreduce(std::atof(argv[2]), std::atoi(argv[3]));
#else
    if (mode == "collectives" || mode == "timeout" || mode == "local" || mode == "allreduce") {
      std::fprintf(stderr, "dist_harness %s needs a CUDA build (TT_CUDA=ON)\n", mode.c_str());
      return 3;
    }
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dist_harness %s: %s\n", mode.c_str(), e.what());
    return 1;
  }
  return usage();
}
