// The GEMM family's descriptor and space (see the header; the run-time choice is in
// gemm_choose.cpp, so that the device harness can build this file without the database).
#include "ops/cuda/gemm/gemm_space.h"

#include <fmt/format.h>

#include <algorithm>

#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::ops::cuda::gemm {
namespace {

using autotune::Config;
using autotune::Descriptor;
using autotune::ParamSpace;
using Constraint = Descriptor<GemmConfig>::Constraint;

// Rows per chunk offered with cuBLASLt (0: one GEMM, then one pass).
const std::vector<int64_t> kChunkCandidates = {0, 1024, 2048, 4096, 8192};
constexpr int64_t kMaxChunks = 16;
// Tail rows offered for a tail split (0: none). H200, the group-norm stage at full
// shape: 2048 to 16384 rows all within 0.3% (5.64-5.65 ms); 64 rows 5.65-5.77 ms.
const std::vector<int64_t> kTailCandidates = {0, 64, 2048, 4096, 8192};

Descriptor<GemmConfig> make_descriptor(bool chunks, bool tails) {
  const std::vector<GemmConfig>& table = own_variants();
  const std::vector<std::string> own = {"own"}, lt = {"cublaslt"};
  Descriptor<GemmConfig> d("gemm");
  d.impl(&GemmConfig::impl, {{"own", GemmImpl::kOwn}, {"cublaslt", GemmImpl::kCublasLt}})
      .field("bm", &GemmConfig::bm, autotune::distinct_values(table, &GemmConfig::bm), own)
      .field("bn", &GemmConfig::bn, autotune::distinct_values(table, &GemmConfig::bn), own)
      .field("bk", &GemmConfig::bk, autotune::distinct_values(table, &GemmConfig::bk), own)
      .field("tm", &GemmConfig::tm, autotune::distinct_values(table, &GemmConfig::tm), own)
      .field("tn", &GemmConfig::tn, autotune::distinct_values(table, &GemmConfig::tn), own)
      .field("vec", &GemmConfig::vec, autotune::distinct_values(table, &GemmConfig::vec), own)
      .field("stages", &GemmConfig::stages, autotune::distinct_values(table, &GemmConfig::stages),
             own);
  std::vector<int64_t> algos;
  for (int i = 0; i < kCublasAlgoCandidates; ++i) algos.push_back(i);
  d.field("algo", &GemmConfig::cublas_algo_index, algos, lt);
  if (chunks) d.field("chunk", &GemmConfig::chunk_rows, kChunkCandidates, lt);
  if (tails) d.field("tail", &GemmConfig::tail_rows, kTailCandidates, lt);
  d.compiled(
      "the tile must be one of the compiled own variants (ops/cuda/gemm/tiled_gemm_variants.h)",
      table, own);
  return d;
}

// The problem's rules, shared by the launch-time check and the space.
bool vec_fits(const GemmConfig& c, int align) { return c.vec <= align; }
bool tail_fits(const GemmConfig& c, int64_t m) {
  return c.tail_rows == 0 || (2 * c.tail_rows <= m && c.chunk_rows == 0);
}
bool chunk_fits(const GemmConfig& c, int64_t m) {
  return c.chunk_rows == 0 || (2 * c.chunk_rows <= m && c.chunk_rows * kMaxChunks >= m);
}

// What the own kernel's shared tiles take (tiled_gemm.cuh: 2 * BK * (BM + 4 + BN + 4)
// floats); the epilogues reuse the same buffer.
int64_t own_shared_bytes(const GemmConfig& c) {
  return 2 * int64_t{c.bk} * (c.bm + 4 + c.bn + 4) * static_cast<int64_t>(sizeof(float));
}

}  // namespace

const Descriptor<GemmConfig>& gemm_descriptor(bool chunks, bool tails) {
  static const Descriptor<GemmConfig> d[2][2] = {
      {make_descriptor(false, false), make_descriptor(false, true)},
      {make_descriptor(true, false), make_descriptor(true, true)}};
  return d[chunks][tails];
}

// The text form names the chunk and the tail only when set, so that a plain config
// reads as the spaces without those axes spell it.
std::string GemmConfig::str() const {
  return gemm_descriptor(chunk_rows > 0, tail_rows > 0).str(*this);
}

bool GemmConfig::operator==(const GemmConfig& o) const { return gemm_descriptor().equal(*this, o); }

bool valid(const GemmConfig& c, const GemmProblem& p) {
  if (!gemm_descriptor().valid(c)) return false;
  if (c.impl == GemmImpl::kOwn) return vec_fits(c, p.align);
  return tail_fits(c, p.m);
}

int gemm_load_align(const GemmProblem& p) {
  const int k_align = p.k % 4 == 0 ? 4 : p.k % 2 == 0 ? 2 : 1;
  return std::max(1, std::min(p.align, k_align));
}

std::string gemm_problem_key(const GemmStage& stage, const GemmProblem& p, int64_t groups) {
  autotune::ProblemKey key;
  key.add("m", p.m).add("n", p.n).add("k", p.k);
  if (stage.groups_in_key) key.add("groups", groups);
  key.add_align_floats(gemm_load_align(p)).add_precision();
  return key.str();
}

ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                      const tt::cuda::DeviceLimits& limits, AlgoCount algo_count) {
  const int align = gemm_load_align(p);
  const int64_t m = p.m;
  const std::vector<std::string> own = {"own"}, lt = {"cublaslt"};
  std::vector<Constraint> rules;
  rules.push_back({fmt::format("vec must not exceed the {} floats that the addresses of X and W "
                               "and K = {} allow",
                               align, p.k),
                   [align](const GemmConfig& c) { return vec_fits(c, align); }, own});
  if (stage.chunks) {
    rules.push_back(
        {fmt::format("chunk must be 0 or split the {} rows into 2 to {} chunks", m, kMaxChunks),
         [m](const GemmConfig& c) { return chunk_fits(c, m); }, lt});
  }
  if (stage.tails) {
    rules.push_back(
        {fmt::format("tail must be 0 or at most half the {} rows, and not combined with chunk", m),
         [m](const GemmConfig& c) { return tail_fits(c, m); }, lt});
  }
  if (limits.known) {
    const int max_threads = limits.max_threads_per_block;
    rules.push_back(
        {fmt::format("(bm/tm)*(bn/tn) threads must not exceed the device's {} per block",
                     max_threads),
         [max_threads](const GemmConfig& c) { return c.threads() <= max_threads; }, own});
    const int64_t max_shared = limits.max_shared_per_block;
    rules.push_back(
        {fmt::format("the tile's 2*bk*(bm+bn+8) floats of shared memory must fit the "
                     "device's {} bytes per block",
                     max_shared),
         [max_shared](const GemmConfig& c) { return own_shared_bytes(c) <= max_shared; }, own});
    if (algo_count) {
      const AlgoCount count = algo_count;
      rules.push_back(
          {fmt::format("algo must index cuBLASLt's heuristic list for the GEMM (or chunk) shape "
                       "on this device ({} algorithms for m={})",
                       count(m), m),
           [count, m](const GemmConfig& c) {
             const int64_t chunk = c.chunk_rows, tail = c.tail_rows;
             const int64_t a = c.cublas_algo_index;
             // A tail split runs the index on the head, the first pick on the tail.
             if (tail > 0 && tail < m) return a < count(m - tail) && count(tail) > 0;
             if (chunk == 0) return a < count(m);
             if (a >= count(std::min(chunk, m))) return false;
             return m % chunk == 0 || a < count(m % chunk);
           },
           lt});
    }
  }
  return gemm_descriptor(stage.chunks, stage.tails)
      .space(stage.name, std::move(rules), GemmConfig::default_for(p));
}

}  // namespace tt::ops::cuda::gemm
