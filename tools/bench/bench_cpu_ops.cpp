// Google Benchmark for the CPU reference ops: GEMM throughput of linear (GFLOP/s)
// and memory throughput of the norms (GB/s, one read of the input and one write of
// the output). The `threads` counter records how many threads Eigen's GEMM may use.
#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include <cstdint>

#include "core/tensor.h"
#include "ops/ops.h"

namespace {

using tt::Tensor;

void set_bytes_counter(benchmark::State& state, int64_t numel) {
  // Read the input once and write the output once.
  state.counters["bytes"] = benchmark::Counter(static_cast<double>(2 * numel * sizeof(float)),
                                               benchmark::Counter::kIsIterationInvariantRate,
                                               benchmark::Counter::kIs1000);
}

void BM_Linear(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const Tensor x = Tensor::rand({m, k}, 1);
  const Tensor w = Tensor::uniform({n, k}, -0.03, 0.03, 2);
  const Tensor b = Tensor::uniform({n}, -0.03, 0.03, 3);
  for (auto _ : state) benchmark::DoNotOptimize(tt::ops::linear(x, w, b));
  // Shown as e.g. "flops=30.7G/s": floating-point operations per second.
  state.counters["flops"] = benchmark::Counter(
      2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["threads"] = Eigen::nbThreads();
}
BENCHMARK(BM_Linear)
    ->Args({256, 1024, 1024})
    ->Args({1024, 1024, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_InstanceNorm(benchmark::State& state) {
  const int64_t n = state.range(0), c = state.range(1), hw = state.range(2);
  const Tensor x = Tensor::rand({n, c, hw, hw}, 4);
  for (auto _ : state) benchmark::DoNotOptimize(tt::ops::instance_norm(x));
  set_bytes_counter(state, x.numel());
}
BENCHMARK(BM_InstanceNorm)->Args({8, 64, 128})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GroupNorm(benchmark::State& state) {
  const int64_t rows = state.range(0), c = state.range(1), groups = state.range(2);
  const Tensor x = Tensor::rand({rows, c}, 5);
  const Tensor gamma = Tensor::ones({c}), beta = Tensor::zeros({c});
  for (auto _ : state) benchmark::DoNotOptimize(tt::ops::group_norm(x, groups, gamma, beta));
  set_bytes_counter(state, x.numel());
}
BENCHMARK(BM_GroupNorm)->Args({4096, 4096, 64})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BatchNormTrain(benchmark::State& state) {
  const int64_t rows = state.range(0), c = state.range(1);
  const Tensor x = Tensor::rand({rows, c}, 6);
  const Tensor gamma = Tensor::ones({c}), beta = Tensor::zeros({c});
  const Tensor running_mean = Tensor::zeros({c}), running_var = Tensor::ones({c});
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        tt::ops::batch_norm(x, running_mean, running_var, gamma, beta, /*training=*/true));
  }
  set_bytes_counter(state, x.numel());
}
BENCHMARK(BM_BatchNormTrain)->Args({4096, 4096})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
