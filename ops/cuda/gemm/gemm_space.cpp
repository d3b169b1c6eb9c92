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

// Rows per chunk offered with cuBLASLt and tc (0: one GEMM, then one pass).
const std::vector<int64_t> kChunkCandidates = {0, 1024, 2048, 4096, 8192};
constexpr int64_t kMaxChunks = 16;
// Tail rows offered for a tail split (0: none); past 2048 rows the size hardly matters
// (docs/performance.md).
const std::vector<int64_t> kTailCandidates = {0, 64, 2048, 4096, 8192};
// The tc family's run-time fields: raster groups of tile rows (L2 reuse of W's
// panels) and persistent CTAs (one per SM looping over tiles) or one CTA per tile.
const std::vector<int64_t> kTcGroupCandidates = {1, 4, 8, 16};
const std::vector<int64_t> kTcPersistentCandidates = {0, 1};

const char* const kOwn = "own";
const char* const kLt = "cublaslt";
const char* const kLtTf32 = "cublaslt_tf32";
const char* const kTc = "tc";

// The distinct values of a field over both compiled tables, own's first; a field that
// only tc reads falls back to {0} when this build has no tc variants (the impl is
// declared either way, so that its text parses; the "compiled" rule rejects it).
template <class T>
std::vector<int64_t> values_of(T GemmConfig::*member, bool own, bool tc) {
  std::vector<GemmConfig> both;
  if (own) both = own_variants();
  if (tc) both.insert(both.end(), tc_variants().begin(), tc_variants().end());
  std::vector<int64_t> v = autotune::distinct_values(both, member);
  if (v.empty()) v.push_back(0);
  return v;
}

Descriptor<GemmConfig> make_descriptor(bool chunks, bool tails, bool stats_pass) {
  const std::vector<std::string> own = {kOwn}, lt = {kLt, kLtTf32}, tc = {kTc},
                                 own_tc = {kOwn, kTc}, scheduled = {kLt, kLtTf32, kTc};
  Descriptor<GemmConfig> d("gemm");
  d.impl(&GemmConfig::impl, {{kOwn, GemmImpl::kOwn},
                             {kLt, GemmImpl::kCublasLt},
                             {kLtTf32, GemmImpl::kCublasLtTf32},
                             {kTc, GemmImpl::kTc}})
      .field("accurate", &GemmConfig::tc_accurate, values_of(&GemmConfig::tc_accurate, false, true),
             tc)
      .field("a_regs", &GemmConfig::tc_a_regs, values_of(&GemmConfig::tc_a_regs, false, true), tc)
      .field("bm", &GemmConfig::bm, values_of(&GemmConfig::bm, true, true), own_tc)
      .field("bn", &GemmConfig::bn, values_of(&GemmConfig::bn, true, true), own_tc)
      .field("bk", &GemmConfig::bk, values_of(&GemmConfig::bk, true, true), own_tc)
      .field("tm", &GemmConfig::tm, values_of(&GemmConfig::tm, true, false), own)
      .field("tn", &GemmConfig::tn, values_of(&GemmConfig::tn, true, false), own)
      .field("vec", &GemmConfig::vec, values_of(&GemmConfig::vec, true, false), own)
      .field("stages", &GemmConfig::stages, values_of(&GemmConfig::stages, true, true), own_tc)
      .field("wg", &GemmConfig::tc_warpgroups, values_of(&GemmConfig::tc_warpgroups, false, true),
             tc)
      .field("pingpong", &GemmConfig::tc_pingpong, values_of(&GemmConfig::tc_pingpong, false, true),
             tc)
      .field("cluster", &GemmConfig::tc_cluster, values_of(&GemmConfig::tc_cluster, false, true),
             tc);
  const TcRuntimeCandidates& rt = tc_runtime_candidates();
  std::vector<int64_t> promote = {0};  // tf32
  for (int64_t v : rt.promote) {
    if (v != 0) promote.push_back(v);
  }
  d.field("promote", &GemmConfig::tc_promote, promote, tc)
      .field("group", &GemmConfig::tc_group, rt.group, tc)
      .field("raster_n", &GemmConfig::tc_raster_n, rt.raster_n, tc)
      .field("persistent", &GemmConfig::tc_persistent, rt.persistent, tc)
      .field("store_vec", &GemmConfig::tc_vec, rt.vec, tc);
  std::vector<int64_t> algos;
  for (int i = 0; i < kCublasAlgoCandidates; ++i) algos.push_back(i);
  d.field("algo", &GemmConfig::cublas_algo_index, algos, lt);
  if (chunks) d.field("chunk", &GemmConfig::chunk_rows, kChunkCandidates, scheduled);
  if (tails) d.field("tail", &GemmConfig::tail_rows, kTailCandidates, scheduled);
  // tc's choice (the own kernel's compiled rows are its whole space there, and it is
  // not what any tuned device runs at these sizes).
  if (stats_pass) d.field("stats_pass", &GemmConfig::stats_pass, {0, 1}, tc);
  d.compiled(
      "the tile must be one of the compiled own variants (ops/cuda/gemm/tiled_gemm_variants.h)",
      own_variants(), own);
  // The compile-time fields must name a row of the variant table and the run-time fields
  // be what the kernel accepts (sm90::tc_config_invalid_reason).
  if (tc_variants().empty()) {
    d.constraint(
        "this build has no sm_90a code for the tensor-core family (impl=tc)",
        [](const GemmConfig&) { return false; }, tc);
  } else {
    d.constraint(
        "the tensor-core variant must be runnable: accurate, a_regs, bm, bn, bk, stages, wg, "
        "pingpong and cluster a row of the compiled table (ops/cuda/gemm/sm90/tc_gemm_variants.h), "
        "promote a multiple of bk in accurate and 0 in tf32",
        [](const GemmConfig& c) { return tc_runnable(c); }, tc);
  }
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

// The impls a space offers in each precision (CONTRACT item 2): strict = own +
// cuBLASLt(32F); tf32 = strict's + cuBLASLt(FAST_TF32) + tc tf32; accurate = strict's +
// tc accurate.
std::vector<std::string> impls_of(Precision precision) {
  switch (precision) {
    case Precision::tf32:
      return {kOwn, kLt, kLtTf32, kTc};
    case Precision::accurate:
      return {kOwn, kLt, kTc};
    case Precision::strict:
      break;
  }
  return {kOwn, kLt};
}

}  // namespace

const Descriptor<GemmConfig>& gemm_descriptor(bool chunks, bool tails, bool stats_pass) {
  static const Descriptor<GemmConfig> d[2][2][2] = {
      {{make_descriptor(false, false, false), make_descriptor(false, false, true)},
       {make_descriptor(false, true, false), make_descriptor(false, true, true)}},
      {{make_descriptor(true, false, false), make_descriptor(true, false, true)},
       {make_descriptor(true, true, false), make_descriptor(true, true, true)}}};
  return d[chunks][tails][stats_pass];
}

// The text form names the chunk and the tail only when set, so that a plain config
// reads as the spaces without those axes spell it.
std::string GemmConfig::str() const {
  return gemm_descriptor(chunk_rows > 0, tail_rows > 0, stats_pass != 0).str(*this);
}

bool GemmConfig::operator==(const GemmConfig& o) const {
  return gemm_descriptor(true, true, true).equal(*this, o);
}

bool valid(const GemmConfig& c, const GemmProblem& p) {
  if (!gemm_descriptor(true, true, true).valid(c)) return false;
  if (c.impl == GemmImpl::kOwn) return vec_fits(c, p.align);
  if (c.impl == GemmImpl::kTc && !tc_fits(p)) return false;
  return tail_fits(c, p.m);
}

int gemm_load_align(const GemmProblem& p) {
  const int k_align = p.k % 4 == 0 ? 4 : p.k % 2 == 0 ? 2 : 1;
  return std::max(1, std::min(p.align, k_align));
}

std::string gemm_problem_key(const GemmStage& stage, const GemmProblem& p, int64_t groups,
                             Precision precision) {
  autotune::ProblemKey key;
  key.add("m", p.m).add("n", p.n).add("k", p.k);
  if (stage.groups_in_key) key.add("groups", groups);
  key.add_align_floats(gemm_load_align(p)).add_precision(precision);
  return key.str();
}

ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                      const tt::cuda::DeviceLimits& limits, AlgoCount algo_count) {
  GemmSpaceOptions options;
  options.algo_count = std::move(algo_count);
  return gemm_space(stage, p, limits, options);
}

ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                      const tt::cuda::DeviceLimits& limits, const GemmSpaceOptions& options) {
  const int align = gemm_load_align(p);
  const int64_t m = p.m;
  const Precision precision = options.precision;
  const std::vector<std::string> impls = impls_of(precision);
  const auto offered = [&](std::vector<std::string> list) {
    std::vector<std::string> out;
    for (const std::string& i : list) {
      if (std::find(impls.begin(), impls.end(), i) != impls.end()) out.push_back(i);
    }
    return out;
  };
  const std::vector<std::string> own = {kOwn}, tc = offered({kTc}),
                                 scheduled = offered({kLt, kLtTf32, kTc});
  std::vector<Constraint> rules;
  rules.push_back({fmt::format("vec must not exceed the {} floats that the addresses of X and W "
                               "and K = {} allow",
                               align, p.k),
                   [align](const GemmConfig& c) { return vec_fits(c, align); }, own});
  if (!tc.empty()) {
    const bool fits = tc_fits(p);
    rules.push_back({fmt::format("the tensor-core family needs K % 4 == 0 and 16-byte aligned X "
                                 "and W (the TMA's rules); K = {}, alignment {} bytes",
                                 p.k, 4 * p.align),
                     [fits](const GemmConfig&) { return fits; }, tc});
  }
  if (stage.residual && !tc.empty()) {
    const bool n_fits = p.n % 4 == 0;
    rules.push_back({fmt::format("the tensor-core kernel combines the residual in its TMA store "
                                 "epilogue: store_vec must be 4 and N a multiple of 4; N = {}",
                                 p.n),
                     [n_fits](const GemmConfig& c) { return n_fits && c.tc_vec == 4; }, tc});
  }
  if (stage.chunks) {
    rules.push_back(
        {fmt::format("chunk must be 0 or split the {} rows into 2 to {} chunks", m, kMaxChunks),
         [m](const GemmConfig& c) { return chunk_fits(c, m); }, scheduled});
  }
  if (stage.tails) {
    rules.push_back(
        {fmt::format("tail must be 0 or at most half the {} rows, and not combined with chunk", m),
         [m](const GemmConfig& c) { return tail_fits(c, m); }, scheduled});
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
    const bool tc_runs = limits.cc_major == 9 && limits.cc_minor == 0 && !tc_variants().empty();
    if (!tc.empty() && !tc_runs) {
      rules.push_back(
          {fmt::format("the tensor-core family (impl=tc) needs compute capability 9.0 and this "
                       "build's sm_90a code; this GPU has compute capability {}.{}{}",
                       limits.cc_major, limits.cc_minor,
                       tc_variants().empty() ? " and the build has no sm_90a code" : ""),
           [](const GemmConfig&) { return false; }, tc});
    }
    // cuBLASLt's heuristic list of each compute type, when known.
    for (const auto& [impl, counter] :
         {std::pair<const char*, AlgoCount>{kLt, options.algo_count},
          std::pair<const char*, AlgoCount>{kLtTf32, options.tf32_algo_count}}) {
      if (!counter || offered({impl}).empty()) continue;
      const AlgoCount count = counter;
      rules.push_back(
          {fmt::format("algo must index cuBLASLt's heuristic list for the GEMM (or chunk) shape "
                       "on this device ({} algorithms for m={}{})",
                       count(m), m, impl == kLtTf32 ? " with FAST_TF32" : ""),
           [count, m](const GemmConfig& c) {
             const int64_t chunk = c.chunk_rows, tail = c.tail_rows;
             const int64_t a = c.cublas_algo_index;
             // A tail split runs the index on the head, the first pick on the tail.
             if (tail > 0 && tail < m) return a < count(m - tail) && count(tail) > 0;
             if (chunk == 0) return a < count(m);
             if (a >= count(std::min(chunk, m))) return false;
             return m % chunk == 0 || a < count(m % chunk);
           },
           {impl}});
    }
  }
  // The tc axes hold only the values of the precision's mode rows (tf32: accurate=0,
  // accurate: accurate=1), which is also what keeps the space's product, and so its
  // enumeration by the tuner, near its valid configs.
  std::vector<Descriptor<GemmConfig>::Narrowing> narrowed;
  if (!tc.empty() && !tc_variants().empty()) {
    const int accurate = precision == Precision::accurate ? 1 : 0;
    const auto mode_rows = [accurate](const GemmConfig& c) { return c.tc_accurate == accurate; };
    const std::vector<GemmConfig>& rows = tc_variants();
    const auto narrow = [&](const char* field, auto member) {
      narrowed.push_back({field, tc, autotune::distinct_values(rows, member, mode_rows)});
    };
    narrow("accurate", &GemmConfig::tc_accurate);
    narrow("a_regs", &GemmConfig::tc_a_regs);
    narrow("bm", &GemmConfig::bm);
    narrow("bn", &GemmConfig::bn);
    narrow("bk", &GemmConfig::bk);
    narrow("stages", &GemmConfig::stages);
    narrow("wg", &GemmConfig::tc_warpgroups);
    narrow("pingpong", &GemmConfig::tc_pingpong);
    std::vector<int64_t> promote = {0};
    if (accurate) promote = tc_runtime_candidates().promote;
    narrowed.push_back({"promote", tc, promote});
  }
  GemmConfig fallback = GemmConfig::default_for(p, precision, options.tc_device);
  // Where the stage offers it, tc's default takes the statistics from a pass: at the seed
  // shapes the statistics in the epilogue stall the tensor cores longer than a pass
  // takes (docs/performance.md); the tuner tries both.
  if (stage.stats_pass && fallback.impl == GemmImpl::kTc) fallback.stats_pass = 1;
  // A residual tc cannot combine (N % 4 != 0): cuBLASLt's first pick instead.
  if (stage.residual && fallback.impl == GemmImpl::kTc && p.n % 4 != 0)
    fallback = GemmConfig::cublaslt(0);
  return gemm_descriptor(stage.chunks, stage.tails, stage.stats_pass)
      .space(stage.name, std::move(rules), fallback, impls, narrowed);
}

}  // namespace tt::ops::cuda::gemm
