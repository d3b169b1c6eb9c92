// The GEMM stage's space (see the header): axes generated from the compiled own
// variants, cuBLASLt's heuristic index and chunking, their constraints and default.
#include "ops/cuda/tuning/gemm_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::ops::cuda::tuning {
namespace {

using autotune::Config;
using autotune::ParamSpace;
using gemm::GemmConfig;
using gemm::GemmImpl;
using gemm::GemmKernel;

// Rows per chunk offered with cuBLASLt (0: one GEMM, then one pass).
const std::vector<int64_t> kChunkCandidates = {0, 1024, 2048, 4096, 8192};
constexpr int64_t kMaxChunks = 16;
// Tail rows offered for model 3's tail split (0: none). H200, full shape: 2048 to
// 16384 rows all within 0.3% (5.64-5.65 ms); 64 rows 5.65-5.77 ms.
const std::vector<int64_t> kTailCandidates = {0, 64, 2048, 4096, 8192};

// The distinct values of one field over the compiled own variants, in table order.
std::vector<int64_t> own_values(int GemmConfig::*field) {
  std::vector<int64_t> out;
  for (const GemmConfig& c : gemm::own_variants()) {
    const int64_t v = c.*field;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

GemmConfig own_of(const Config& c) {
  GemmConfig g;
  g.impl = GemmImpl::kOwn;
  g.bm = static_cast<int>(c.get("bm"));
  g.bn = static_cast<int>(c.get("bn"));
  g.bk = static_cast<int>(c.get("bk"));
  g.tm = static_cast<int>(c.get("tm"));
  g.tn = static_cast<int>(c.get("tn"));
  g.vec = static_cast<int>(c.get("vec"));
  g.stages = static_cast<int>(c.get("stages"));
  return g;
}

bool compiled(const GemmConfig& g) {
  const auto& table = gemm::own_variants();
  return std::find(table.begin(), table.end(), g) != table.end();
}

// What the own kernel's shared tiles take (tiled_gemm.cuh: 2 * BK * (BM + 4 + BN + 4)
// floats); the epilogues reuse the same buffer.
int64_t own_shared_bytes(const Config& c) {
  return 2 * c.get("bk") * (c.get("bm") + 4 + c.get("bn") + 4) *
         static_cast<int64_t>(sizeof(float));
}

}  // namespace

std::string gemm_stage_name(GemmKernel kernel) {
  if (kernel == GemmKernel::kBiasRelu) return gemm::kernel_name(kernel);
  return std::string(gemm::kernel_name(kernel)) + ".gemm";
}

bool gemm_stage_tails(GemmKernel kernel) {
  return kernel == GemmKernel::kSwishBiasGroupNorm || kernel == GemmKernel::kScaleBatchNormTrain;
}

bool gemm_stage_chunks(GemmKernel kernel) {
  return kernel == GemmKernel::kSwishBiasGroupNorm || kernel == GemmKernel::kScaleBatchNormTrain ||
         kernel == GemmKernel::kScaleBatchNormEval;
}

int gemm_load_align(const gemm::GemmProblem& p) {
  const int k_align = p.k % 4 == 0 ? 4 : p.k % 2 == 0 ? 2 : 1;
  return std::max(1, std::min(p.align, k_align));
}

std::string gemm_problem_key(GemmKernel kernel, const gemm::GemmProblem& p, int64_t groups) {
  autotune::ProblemKey key;
  key.add("m", p.m).add("n", p.n).add("k", p.k);
  if (kernel == GemmKernel::kSwishBiasGroupNorm) key.add("groups", groups);
  key.add("align", fmt::format("{}B", 4 * gemm_load_align(p)));
  key.add("precision", "strict");
  return key.str();
}

ParamSpace gemm_space(GemmKernel kernel, const gemm::GemmProblem& p, const DeviceLimits& limits,
                      AlgoCount algo_count) {
  const bool chunks = gemm_stage_chunks(kernel);
  const bool tails = gemm_stage_tails(kernel);
  const int align = gemm_load_align(p);
  const int64_t m = p.m;
  ParamSpace space(gemm_stage_name(kernel));
  space.impls({"own", "cublaslt"});
  space.axis("bm", own_values(&GemmConfig::bm), {"own"})
      .axis("bn", own_values(&GemmConfig::bn), {"own"})
      .axis("bk", own_values(&GemmConfig::bk), {"own"})
      .axis("tm", own_values(&GemmConfig::tm), {"own"})
      .axis("tn", own_values(&GemmConfig::tn), {"own"})
      .axis("vec", own_values(&GemmConfig::vec), {"own"})
      .axis("stages", own_values(&GemmConfig::stages), {"own"});
  std::vector<int64_t> algos;
  for (int i = 0; i < kCublasAlgoCandidates; ++i) algos.push_back(i);
  space.axis("algo", algos, {"cublaslt"});
  if (chunks) space.axis("chunk", kChunkCandidates, {"cublaslt"});
  if (tails) space.axis("tail", kTailCandidates, {"cublaslt"});

  space.constraint(
      "the tile must be one of the compiled own variants (ops/cuda/gemm/tiled_gemm_variants.h)",
      [](const Config& c) { return compiled(own_of(c)); }, {"own"});
  space.constraint(fmt::format("vec must not exceed the {} floats that the addresses of X and W "
                               "and K = {} allow",
                               align, p.k),
                   [align](const Config& c) { return c.get("vec") <= align; }, {"own"});
  if (chunks) {
    space.constraint(
        fmt::format("chunk must be 0 or split the {} rows into 2 to {} chunks", m, kMaxChunks),
        [m](const Config& c) {
          const int64_t chunk = c.get("chunk");
          return chunk == 0 || (2 * chunk <= m && chunk * kMaxChunks >= m);
        },
        {"cublaslt"});
  }
  if (tails) {
    space.constraint(
        fmt::format("tail must be 0 or at most half the {} rows, and not combined with chunk", m),
        [m](const Config& c) {
          const int64_t tail = c.get("tail");
          return tail == 0 || (2 * tail <= m && c.get_or("chunk", 0) == 0);
        },
        {"cublaslt"});
  }
  if (limits.known) {
    const int max_threads = limits.max_threads_per_block;
    space.constraint(
        fmt::format("(bm/tm)*(bn/tn) threads must not exceed the device's {} per block",
                    max_threads),
        [max_threads](const Config& c) {
          return (c.get("bm") / c.get("tm")) * (c.get("bn") / c.get("tn")) <= max_threads;
        },
        {"own"});
    const int64_t max_shared = limits.max_shared_per_block;
    space.constraint(fmt::format("the tile's 2*bk*(bm+bn+8) floats of shared memory must fit the "
                                 "device's {} bytes per block",
                                 max_shared),
                     [max_shared](const Config& c) { return own_shared_bytes(c) <= max_shared; },
                     {"own"});
    if (algo_count) {
      const AlgoCount count = algo_count;
      space.constraint(
          fmt::format("algo must index cuBLASLt's heuristic list for the GEMM (or chunk) shape on "
                      "this device ({} algorithms for m={})",
                      count(m), m),
          [count, m, chunks](const Config& c) {
            const int64_t chunk = chunks ? c.get("chunk") : 0;
            const int64_t tail = c.get_or("tail", 0);
            const int64_t a = c.get("algo");
            // A tail split runs the index on the head, the first pick on the tail.
            if (tail > 0 && tail < m) return a < count(m - tail) && count(tail) > 0;
            if (chunk == 0) return a < count(m);
            if (a >= count(std::min(chunk, m))) return false;
            return m % chunk == 0 || a < count(m % chunk);
          },
          {"cublaslt"});
    }
  }
  space.set_default(gemm_to_config(GemmConfig::default_for(p), chunks, tails));
  return space;
}

Config gemm_to_config(const GemmConfig& c, bool with_chunk, bool with_tail) {
  Config out;
  if (c.impl == GemmImpl::kCublasLt) {
    out.set_impl("cublaslt");
    out.set("algo", c.cublas_algo_index);
    if (with_chunk) out.set("chunk", c.chunk_rows);
    if (with_tail) out.set("tail", c.tail_rows);
    return out;
  }
  out.set_impl("own");
  out.set("bm", c.bm).set("bn", c.bn).set("bk", c.bk).set("tm", c.tm).set("tn", c.tn);
  out.set("vec", c.vec).set("stages", c.stages);
  return out;
}

GemmConfig gemm_from_config(const Config& c) {
  if (c.impl() == "cublaslt") {
    return GemmConfig::cublaslt(static_cast<int>(c.get("algo")), c.get_or("chunk", 0),
                                c.get_or("tail", 0));
  }
  TT_CHECK(c.impl() == "own", "gemm config {}: impl must be own or cublaslt",
           c.str().empty() ? "(empty)" : c.str());
  return own_of(c);
}

}  // namespace tt::ops::cuda::tuning
