// The tensor-parallel transformer block on the GPUs (issue 23, tools/device/dist_check.sh):
//   tt launch -n W dist_tp_bench [--width 4096 --heads 32 --batch 16 --tokens 2048
//       --mlp 4 --precision tf32 --iters 5 --chunks 1 --write FILE | --ref FILE]
// --chunks n > 1 overlaps each chunk's all_reduce with the next chunk's compute.
// Every rank builds the same seeded block (its own slices), runs it on the same input,
// and times the forward (CUDA events on the tt stream, median of --iters after one
// warm-up; each forward ends in its all_reduce, so every rank's time is the block's).
// --write saves rank 0's output (raw float32) as the reference, --ref compares rank 0's
// output with such a file: max abs error, max abs error / max |ref|, relative L2.
// With W = 1 it is the one-GPU block (no collective runs).
#include <cuda_runtime_api.h>
#include <tensortune/tensortune.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/cuda/event_timer.h"
#include "core/cuda/stream.h"

namespace {

struct Args {
  int64_t width = 4096, heads = 32, batch = 16, tokens = 2048, mlp = 4;
  std::string precision = "tf32";
  int iters = 5;
  int chunks = 1;  // TensorParallelTransformerBlock::overlap_chunks
  std::string write, ref;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--width")
      a.width = std::stoll(v);
    else if (k == "--heads")
      a.heads = std::stoll(v);
    else if (k == "--batch")
      a.batch = std::stoll(v);
    else if (k == "--tokens")
      a.tokens = std::stoll(v);
    else if (k == "--mlp")
      a.mlp = std::stoll(v);
    else if (k == "--precision")
      a.precision = v;
    else if (k == "--iters")
      a.iters = std::stoi(v);
    else if (k == "--chunks")
      a.chunks = std::stoi(v);
    else if (k == "--write")
      a.write = v;
    else if (k == "--ref")
      a.ref = v;
    else
      TT_FAIL("dist_tp_bench: unknown option {}", k);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    auto g = tt::distributed::init();
    const tt::Device dev = g->device();
    tt::PrecisionGuard precision(tt::parse_precision(a.precision));
    const auto t_build = std::chrono::steady_clock::now();
    tt::nn::TensorParallelTransformerBlock block(a.width, a.heads, a.mlp * a.width, g, /*seed=*/1);
    block.to(dev);
    block.overlap_chunks = a.chunks;
    const double build_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_build).count();
    const tt::Tensor x = tt::Tensor::randn({a.batch, a.tokens, a.width}, /*seed=*/2, dev);
    cudaStream_t s = tt::cuda::stream(dev.index);
    tt::Tensor y = block(x);  // warm-up: cuBLAS handles, NCCL buffers, the allocator's cache
    g->synchronize();
    tt::cuda::EventTimer timer;
    std::vector<double> ms;
    for (int i = 0; i < a.iters; ++i) {
      g->barrier();  // start together: a rank that starts late would be timed waiting
      ms.push_back(timer.time([&] { y = block(x); }, s, {}, 0, [&] { g->synchronize(); }));
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf(
        "tp ranks=%d rank=%d precision=%s width=%lld heads=%lld tokens=%lld median_ms=%.3f "
        "min_ms=%.3f build_s=%.1f\n",
        g->size(), g->rank(), a.precision.c_str(), static_cast<long long>(a.width),
        static_cast<long long>(a.heads), static_cast<long long>(a.batch * a.tokens), median,
        ms.front(), build_s);
    if (g->rank() == 0) {
      const std::vector<float> out = y.cpu().to_vector<float>();
      if (!a.write.empty()) {
        std::ofstream f(a.write, std::ios::binary);
        f.write(reinterpret_cast<const char*>(out.data()),
                static_cast<std::streamsize>(out.size() * sizeof(float)));
        TT_CHECK(f.good(), "dist_tp_bench: could not write {}", a.write);
      }
      if (!a.ref.empty()) {
        std::vector<float> ref(out.size());
        std::ifstream f(a.ref, std::ios::binary);
        f.read(reinterpret_cast<char*>(ref.data()),
               static_cast<std::streamsize>(ref.size() * sizeof(float)));
        TT_CHECK(f.gcount() == static_cast<std::streamsize>(ref.size() * sizeof(float)),
                 "dist_tp_bench: {} does not hold {} floats", a.ref, ref.size());
        double max_abs = 0, max_ref = 0, diff2 = 0, ref2 = 0;
        for (size_t i = 0; i < out.size(); ++i) {
          const double d = std::fabs(static_cast<double>(out[i]) - ref[i]);
          max_abs = std::max(max_abs, d);
          max_ref = std::max(max_ref, std::fabs(static_cast<double>(ref[i])));
          diff2 += d * d;
          ref2 += static_cast<double>(ref[i]) * ref[i];
        }
        std::printf(
            "tp compare ranks=%d precision=%s max_abs=%.3e max_abs/max_ref=%.3e "
            "rel_l2=%.3e\n",
            g->size(), a.precision.c_str(), max_abs, max_abs / max_ref, std::sqrt(diff2 / ref2));
      }
    }
    g->barrier();
    tt::distributed::destroy();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dist_tp_bench: %s\n", e.what());
    return 1;
  }
}
