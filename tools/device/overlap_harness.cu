// Model 3 (GemmSwishBiasGroupNorm) at full shape: how the swish + bias + GroupNorm pass
// is best scheduled around the cuBLASLt GEMM. For each cuBLASLt algorithm and row
// chunk it times (CUDA events, L2 flushed before each rep, median):
//   gemm     the chunked GEMM alone (what chunking costs the GEMM),
//   serial   each chunk's pass right after its GEMM on the same stream (L2-hot, no overlap),
//   side     each chunk's pass on a side stream of default priority (overlaps the next GEMM),
//   side-hi  the same with the side stream at the highest priority,
// next to cublasSgemm alone (what PyTorch's GEMM-only runs) and the pass alone. Every
// scheduled output is compared with the unchunked serial one (a race shows as a large
// difference). `overlap_harness ncu` runs each kernel once, for Nsight Compute.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/norm/norm_passes.h"
#include "tools/device/event_timing.h"
#include "tools/device/hash_fill.cuh"

using namespace tt::ops::cuda;
using gemm::LtEpilogue;
using gemm::LtProblem;

namespace {

constexpr int64_t kM = 32768, kN = 4096, kK = 1024, kGroups = 64;
constexpr float kEps = 1e-5f;

struct DevBuf {
  float* p = nullptr;
  explicit DevBuf(size_t count) { TT_CUDA_CHECK(cudaMalloc(&p, count * sizeof(float))); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

void fill(float* p, size_t n, unsigned seed, float lo, float hi) {
  tt::device_tools::hash_fill(p, n, seed, lo, hi);
}

struct Model3 {
  DevBuf x{size_t(kM * kK)}, w{size_t(kN * kK)}, b{size_t(kN)}, bias{size_t(kN)};
  DevBuf gamma{size_t(kN)}, beta{size_t(kN)}, out{size_t(kM * kN)}, scratch{size_t(kM * kN)};
  Model3() {
    const float bound = 1.f / std::sqrt(float(kK));
    fill(x.p, kM * kK, 1, -1.f, 1.f);
    fill(w.p, kN * kK, 2, -bound, bound);
    fill(b.p, kN, 3, -bound, bound);
    fill(bias.p, kN, 4, -0.1f, 0.1f);
    fill(gamma.p, kN, 5, 0.5f, 1.5f);
    fill(beta.p, kN, 6, -0.5f, 0.5f);
    TT_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

LtProblem lt_problem(int64_t rows) { return LtProblem{rows, kN, kK, LtEpilogue::kBias, 0, 16}; }

// The pass's config: the default, until main() has timed every candidate.
norm::SegmentConfig g_pass = norm::SegmentConfig::default_for({kM * kGroups, kN / kGroups, 4});
norm::SegmentConfig g_pass_best = g_pass;

void pass(const Model3& d, const float* y, float* out, int64_t rows, cudaStream_t s) {
  norm::SegmentChainArgs a;
  a.x = y, a.out = out, a.rows = rows, a.n = kN, a.groups = kGroups, a.eps = kEps;
  a.prologue.silu().add_column(d.bias.p);
  a.epilogue.mul_column(d.gamma.p).add_column(d.beta.p);
  norm::launch_segment_chain(g_pass, a, s);
}

enum class Mode { kGemm, kSerial, kSide, kSideHigh };
const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kGemm:
      return "gemm";
    case Mode::kSerial:
      return "serial";
    case Mode::kSide:
      return "side";
    case Mode::kSideHigh:
      return "side-hi";
  }
  return "?";
}

struct Streams {
  cudaStream_t main = tt::cuda::stream(0);
  cudaStream_t side = nullptr, side_high = nullptr, side_next = nullptr;
  cudaEvent_t forked = nullptr, joined = nullptr, joined2 = nullptr;
  Streams() {
    int least = 0, greatest = 0;
    TT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TT_CUDA_CHECK(cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, least));
    TT_CUDA_CHECK(cudaStreamCreateWithPriority(&side_high, cudaStreamNonBlocking, greatest));
    TT_CUDA_CHECK(cudaStreamCreateWithPriority(&side_next, cudaStreamNonBlocking, greatest + 1));
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&joined2, cudaEventDisableTiming));
    std::printf("INFO stream priorities: least %d, greatest %d\n", least, greatest);
  }
};

// Tail split (chunk < 0, tail = -chunk rows): the GEMM over the head rows and the
// GEMM over the last `tail` rows, each followed by its pass. Modes: gemm = the two
// GEMMs only, serial = all on one stream; side = the tail GEMM after the head GEMM on
// a second stream, beside the head's pass; side-hi = the head GEMM on the
// highest-priority stream, the tail GEMM at once on the next priority (no dependency:
// its CTAs follow the head's without a gap), both passes on the main stream, the
// lowest priority: they only get SMs that no GEMM CTA is waiting for, i.e. the last,
// partial wave of the GEMMs.
void forward_tail(const Model3& d, const Streams& st, int algo, int64_t tail, Mode mode) {
  const int64_t head = kM - tail;
  float* tail_out = d.out.p + head * kN;
  // The tail's own first pick: its heuristic list differs from the head's.
  auto gemm_head = [&](cudaStream_t s) {
    gemm::cublaslt_gemm_on(lt_problem(head), d.x.p, d.w.p, d.b.p, d.out.p, algo, s);
  };
  auto gemm_tail = [&](cudaStream_t s) {
    gemm::cublaslt_gemm_on(lt_problem(tail), d.x.p + head * kK, d.w.p, d.b.p, tail_out, 0, s);
  };
  auto record_wait = [&](cudaEvent_t e, cudaStream_t from, cudaStream_t to) {
    TT_CUDA_CHECK(cudaEventRecord(e, from));
    TT_CUDA_CHECK(cudaStreamWaitEvent(to, e, 0));
  };
  if (mode == Mode::kSideHigh) {
    record_wait(st.forked, st.main, st.side_high);
    record_wait(st.forked, st.main, st.side_next);
    gemm_head(st.side_high);
    gemm_tail(st.side_next);
    record_wait(st.joined, st.side_high, st.main);
    pass(d, d.out.p, d.out.p, head, st.main);
    record_wait(st.joined2, st.side_next, st.main);
    pass(d, tail_out, tail_out, tail, st.main);
    return;
  }
  auto fork = [&](cudaStream_t from, cudaStream_t to) { record_wait(st.forked, from, to); };
  auto join = [&](cudaStream_t from, cudaStream_t to) { record_wait(st.joined, from, to); };
  gemm_head(st.main);
  cudaStream_t u = mode == Mode::kSide ? st.side : st.main;
  if (u != st.main) fork(st.main, u);
  gemm_tail(u);
  if (mode == Mode::kGemm) return;
  pass(d, d.out.p, d.out.p, head, st.main);
  pass(d, tail_out, tail_out, tail, u);
  if (u != st.main) join(u, st.main);
}

// One forward of model 3 under (algo, chunk, mode); chunk 0 = one GEMM into scratch,
// chunk < 0 = the tail split of -chunk rows.
void forward(const Model3& d, const Streams& st, int algo, int64_t chunk, Mode mode) {
  if (chunk < 0) return forward_tail(d, st, algo, -chunk, mode);
  if (chunk == 0) {
    gemm::cublaslt_gemm_on(lt_problem(kM), d.x.p, d.w.p, d.b.p, d.scratch.p, algo, st.main);
    if (mode != Mode::kGemm) pass(d, d.scratch.p, d.out.p, kM, st.main);
    return;
  }
  cudaStream_t side = mode == Mode::kSideHigh ? st.side_high : st.side;
  for (int64_t r0 = 0; r0 < kM; r0 += chunk) {
    const int64_t rows = std::min(chunk, kM - r0);
    float* c = d.out.p + r0 * kN;
    gemm::cublaslt_gemm_on(lt_problem(rows), d.x.p + r0 * kK, d.w.p, d.b.p, c, algo, st.main);
    if (mode == Mode::kGemm) continue;
    if (mode == Mode::kSerial) {
      pass(d, c, c, rows, st.main);
      continue;
    }
    TT_CUDA_CHECK(cudaEventRecord(st.forked, st.main));
    TT_CUDA_CHECK(cudaStreamWaitEvent(side, st.forked, 0));
    pass(d, c, c, rows, side);
  }
  if (mode == Mode::kSide || mode == Mode::kSideHigh) {
    TT_CUDA_CHECK(cudaEventRecord(st.joined, side));
    TT_CUDA_CHECK(cudaStreamWaitEvent(st.main, st.joined, 0));
  }
}

// Median of `reps` timed runs after `warm` untimed ones; L2 flushed before each.
float time_ms(const std::function<void()>& f, cudaStream_t s, float* flush, size_t flush_bytes,
              int warm = 2, int reps = 9) {
  return tt::device_tools::median_ms(f, s, warm, reps, {flush, flush_bytes});
}

std::vector<float> to_host(const float* p, size_t n) {
  std::vector<float> h(n);
  TT_CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i]));
    if (!(d <= m)) m = d;  // NaN propagates as a failure
  }
  return m;
}

int run_for_ncu(const Model3& d, const Streams& st) {
  forward(d, st, 0, 0, Mode::kGemm);
  forward(d, st, 1, 0, Mode::kGemm);
  gemm::cublaslt_gemm_on(lt_problem(2048), d.x.p, d.w.p, d.b.p, d.out.p, 1, st.main);
  pass(d, d.scratch.p, d.out.p, kM, st.main);
  TT_CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    cudaDeviceProp prop{};
    TT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("INFO %s, %d SMs, L2 %d MB, persisting L2 max %d MB\n", prop.name,
                prop.multiProcessorCount, prop.l2CacheSize >> 20,
                prop.persistingL2CacheMaxSize >> 20);
    Model3 d;
    Streams st;
    if (argc > 1 && std::strcmp(argv[1], "ncu") == 0) return run_for_ncu(d, st);

    const size_t flush_bytes = size_t(256) << 20;
    DevBuf flush(flush_bytes / sizeof(float));
    const double gflop = 2.0 * kM * kN * kK * 1e-9;
    auto t = [&](const std::function<void()>& f) {
      return time_ms(f, st.main, flush.p, flush_bytes);
    };

    cublasHandle_t blas;
    TT_CUBLAS_CHECK(cublasCreate(&blas));
    TT_CUBLAS_CHECK(cublasSetStream(blas, st.main));
    const float one = 1.f, zero = 0.f;
    const float t_sgemm = t([&] {
      TT_CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(kN), int(kM), int(kK), &one,
                                  d.w.p, int(kK), d.x.p, int(kK), &zero, d.scratch.p, int(kN)));
    });
    std::printf("TIME cublasSgemm alone %.3f ms (%.1f TFLOP/s)\n", t_sgemm, gflop / t_sgemm);
    // The pass alone with every candidate config (out of place, L2 cold); the fastest
    // runs in the schedules below.
    const float bytes = 2.0f * kM * kN * 4;
    float best_pass = 1e30f;
    for (const auto& cfg : norm::SegmentConfig::candidates({kM * kGroups, kN / kGroups, 4})) {
      g_pass = cfg;
      const float ms = t([&] { pass(d, d.scratch.p, d.out.p, kM, st.main); });
      std::printf("TIME pass %-72s %.3f ms (%.2f TB/s)\n", cfg.str().c_str(), ms,
                  bytes / ms * 1e-9);
      if (ms < best_pass) best_pass = ms, g_pass_best = cfg;
    }
    g_pass = g_pass_best;
    // The same kernel without the swish + bias prologue (a plain GroupNorm): what the
    // sigmoid's expf and division cost.
    norm::SegmentNormArgs plain;
    plain.x = d.scratch.p, plain.out = d.out.p, plain.segments = kM * kGroups;
    plain.length = kN / kGroups, plain.groups = kGroups, plain.channels_per_group = kN / kGroups;
    plain.inner = 1, plain.gamma = d.gamma.p, plain.beta = d.beta.p, plain.eps = kEps;
    const float t_plain = t([&] { norm::launch_segment_norm(g_pass, plain, st.main); });
    std::printf("TIME plain group norm, same config: %.3f ms (%.2f TB/s)\n", t_plain,
                bytes / t_plain * 1e-9);
    const float t_pass_inplace = t([&] { pass(d, d.out.p, d.out.p, kM, st.main); });
    std::printf(
        "TIME pass best %s: %.3f ms out of place (floor %.3f ms at 4.28 TB/s), %.3f ms in place\n",
        g_pass.str().c_str(), best_pass, bytes / 4.28e9f, t_pass_inplace);

    // Negative: tail splits of that many rows.
    const std::vector<int64_t> chunks = {0, -64, -2048, -4096, -8192};
    for (int64_t c : chunks) {
      if (c <= 0) continue;
      std::printf("INFO chunk %5lld waves by algo:", static_cast<long long>(c));
      for (const auto& a : gemm::heuristic_algorithms(lt_problem(c), 4))
        std::printf(" %.3f", a.waves);
      std::printf("\n");
    }
    const auto full_algos = gemm::heuristic_algorithms(lt_problem(kM), 2);
    std::printf("INFO full waves by algo:");
    for (const auto& a : full_algos) std::printf(" %.3f", a.waves);
    std::printf("\n");

    forward(d, st, 0, 0, Mode::kSerial);
    TT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> ref = to_host(d.out.p, size_t(kM * kN));

    struct Row {
      int algo;
      int64_t chunk;
      float ms[4];
      double diff;
    };
    std::vector<Row> rows;
    const Mode modes[] = {Mode::kGemm, Mode::kSerial, Mode::kSide, Mode::kSideHigh};
    for (const auto& a : full_algos) {
      for (int64_t c : chunks) {
        Row r{a.index, c, {0, 0, 0, 0}, 0};
        bool ok = true;
        for (int i = 0; i < 4 && ok; ++i) {
          if (c == 0 && (modes[i] == Mode::kSide || modes[i] == Mode::kSideHigh)) continue;
          try {
            r.ms[i] = t([&] { forward(d, st, a.index, c, modes[i]); });
          } catch (const std::exception& e) {  // the algorithm may not exist for a chunk
            std::printf("SKIP algo %d chunk %lld: %s\n", a.index, static_cast<long long>(c),
                        e.what());
            ok = false;
          }
          if (ok && modes[i] != Mode::kGemm) {
            TT_CUDA_CHECK(cudaDeviceSynchronize());
            r.diff = std::max(r.diff, max_abs_diff(ref, to_host(d.out.p, size_t(kM * kN))));
          }
        }
        if (!ok) continue;
        rows.push_back(r);
        std::printf(
            "TIME algo %d %s %5lld  gemm %.3f  serial %.3f  side %.3f  side-hi %.3f  "
            "maxdiff %.2e\n",
            r.algo, c < 0 ? "tail " : "chunk", static_cast<long long>(c < 0 ? -c : c), r.ms[0],
            r.ms[1], r.ms[2], r.ms[3], r.diff);
        std::fflush(stdout);
      }
    }
    // Summary: best schedule per mode, as a ratio of cublasSgemm alone.
    std::printf("\n==== summary (ms, x of cublasSgemm alone %.3f)\n", t_sgemm);
    for (int i = 0; i < 4; ++i) {
      const Row* best = nullptr;
      for (const auto& r : rows)
        if (r.ms[i] > 0 && (!best || r.ms[i] < best->ms[i])) best = &r;
      if (best)
        std::printf(
            "%-8s best %.3f ms x%.3f (algo %d, %s %lld, maxdiff %.1e)\n", mode_name(modes[i]),
            best->ms[i], best->ms[i] / t_sgemm, best->algo, best->chunk < 0 ? "tail" : "chunk",
            static_cast<long long>(best->chunk < 0 ? -best->chunk : best->chunk), best->diff);
    }
    bool bad = false;
    for (const auto& r : rows) bad |= !(r.diff < 1e-3);
    std::printf("outputs %s\n", bad ? "DIFFER (race?)" : "agree within 1e-3");
    return bad ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("FAIL %s\n", e.what());
    return 2;
  }
}
