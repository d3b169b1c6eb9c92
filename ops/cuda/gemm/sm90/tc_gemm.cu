// Launcher of the sm90 tensor-core GEMM family: tensor maps, the variant table, the
// checks that turn a wrong device, config or problem into a tt::Error sentence.
// Compiled for sm_90a only (ops/CMakeLists.txt), since wgmma and setmaxnreg exist
// nowhere else.
#include "ops/cuda/gemm/sm90/tc_gemm.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <fmt/format.h>

#include "core/cuda/check.h"
#include "core/cuda/device.h"
#include "core/error.h"
#include "ops/cuda/gemm/sm90/tc_gemm_launch.cuh"

namespace tt::ops::cuda::gemm::sm90 {

const char* to_string(TcMode mode) { return mode == TcMode::accurate ? "accurate" : "tf32"; }

std::string to_string(const TcConfig& cfg) {
  return fmt::format(
      "{}{} bm={} bn={} bk={} stages={} consumers={} {} cluster={} promote={} group_m={} "
      "raster={} {} vec={}",
      to_string(cfg.mode), cfg.mode == TcMode::tf32 && cfg.a_regs ? " a_regs" : "", cfg.bm, cfg.bn,
      cfg.bk, cfg.stages, cfg.consumers, cfg.pingpong ? "pingpong" : "cooperative", cfg.cluster,
      cfg.promote, cfg.group_m, cfg.raster_n ? "n" : "m", cfg.persistent ? "persistent" : "grid",
      cfg.vec);
}

namespace detail {
// The rows' launchers with residual steps: tc_gemm_residual.cu instantiates them.
TT_TC_GEMM_VARIANTS(TT_TC_RESIDUAL_EXTERN)
}  // namespace detail

namespace {

using detail::flavor;
using detail::launch;
using detail::LaunchFn;

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  // Through the runtime's entry-point query, so that nothing links libcuda directly.
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    TT_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                   cudaEnableDefault, &q));
    TT_CHECK(q == cudaDriverEntryPointSuccess && f != nullptr,
             "tc_gemm: the CUDA driver offers no cuTensorMapEncodeTiled (needs a CUDA 12 "
             "driver or newer); got query result {}.",
             static_cast<int>(q));
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A row-major [rows, k] float matrix (rows `ld` floats apart, default k) as a 2-D tensor
// map whose box is one 128-byte swizzle panel (32 floats of K) by `box_rows` rows. C's map
// (the TMA store epilogue) and the residual's are the same with N for K.
CUtensorMap make_map(const float* p, int64_t rows, int64_t k, int box_rows,
                     CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32, int64_t ld = 0) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(ld > 0 ? ld : k) * sizeof(float)};
  const cuuint32_t box[2] = {32, cuuint32_t(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  CUresult r =
      encode_tiled()(&map, type, 2, const_cast<float*>(p), dims, strides, box, elem,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  TT_CHECK(r == CUDA_SUCCESS,
           "tc_gemm: cuTensorMapEncodeTiled refused a [{}, {}] float matrix at {} with a "
           "32 x {} box (CUresult {}).",
           rows, k, static_cast<const void*>(p), box_rows, static_cast<int>(r));
  return map;
}

struct Entry {
  TcConfig cfg;
  LaunchFn fn;
  LaunchFn fn_residual;  // the same row with residual steps in its TMA store epilogue
  int epi_bufs;          // the TMA store epilogue's buffers (0: registers only)
};

TcConfig row(TcMode mode, bool a_regs, int bm, int bn, int bk, int stages, int consumers,
             bool pingpong, int cluster) {
  TcConfig c{mode, a_regs, bm, bn, bk, stages, consumers, pingpong, cluster};  // its field order
  c.promote = mode == TcMode::accurate ? 64 : 0;  // the measured bound (tc_gemm.h)
  return c;
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
#define TT_TC_ENTRY(mode, a_regs, bm, bn, bk, stages, consumers, pingpong, cluster)             \
  Entry{row(TcMode::mode, a_regs, bm, bn, bk, stages, consumers, pingpong, cluster),            \
        &launch<flavor(TcMode::mode, a_regs), bm, bn, bk, stages, consumers, pingpong, cluster, \
                false>,                                                                         \
        &launch<flavor(TcMode::mode, a_regs), bm, bn, bk, stages, consumers, pingpong, cluster, \
                true>,                                                                          \
        TcTraits<flavor(TcMode::mode, a_regs), bm, bn, bk, stages, consumers, pingpong,         \
                 cluster>::kEpiBufs},
      TT_TC_GEMM_VARIANTS(TT_TC_ENTRY)
#undef TT_TC_ENTRY
  };
  return table;
}

const Entry* find_entry(const TcConfig& cfg) {
  for (const Entry& e : entries())
    if (tc_same_kernel(e.cfg, cfg)) return &e;
  return nullptr;
}

}  // namespace

bool tc_same_kernel(const TcConfig& a, const TcConfig& b) {
  // accurate always takes A from registers, whatever the field says.
  const bool ra = a.mode == TcMode::accurate || a.a_regs;
  const bool rb = b.mode == TcMode::accurate || b.a_regs;
  return a.mode == b.mode && ra == rb && a.bm == b.bm && a.bn == b.bn && a.bk == b.bk &&
         a.stages == b.stages && a.consumers == b.consumers && a.pingpong == b.pingpong &&
         a.cluster == b.cluster;
}

const std::vector<TcConfig>& tc_gemm_variants() {
  static const std::vector<TcConfig> list = [] {
    std::vector<TcConfig> v;
    for (const Entry& e : entries()) v.push_back(e.cfg);
    return v;
  }();
  return list;
}

const TcRuntimeAxes& tc_gemm_runtime_axes() {
  // promote: 32 and 64 keep the error under SGEMM's at every seed shape; 128 does not at
  // K = 1024 (docs/performance.md). The tuner verifies against the float32 reference at
  // strict's tolerance, which 128 passes, so it must not be a candidate at all.
  static const TcRuntimeAxes axes{
      {32, 64}, {1, 2, 4, 8, 16}, {false, true}, {true, false}, {4, 2, 1}};
  return axes;
}

std::vector<TcConfig> tc_gemm_space(TcMode mode) {
  const TcRuntimeAxes& ax = tc_gemm_runtime_axes();
  const std::vector<int> tf32_promote = {0};
  std::vector<TcConfig> out;
  for (const TcConfig& row : tc_gemm_variants()) {
    if (row.mode != mode) continue;
    const bool tma_room = find_entry(row)->epi_bufs > 0;
    for (int promote : mode == TcMode::accurate ? ax.promote : tf32_promote)
      for (int group : ax.group_m)
        for (bool rn : ax.raster_n)
          for (bool pers : ax.persistent)
            for (int vec : ax.vec) {
              TcConfig c = row;
              c.promote = promote;
              c.group_m = group;
              c.raster_n = rn;
              c.persistent = pers;
              c.vec = vec;
              if (vec == 4 && !tma_room) continue;
              out.push_back(c);
            }
  }
  return out;
}

std::string tc_config_invalid_reason(const TcConfig& cfg) {
  if (find_entry(cfg) == nullptr)
    return fmt::format("no compiled variant matches the config '{}'", to_string(cfg));
  if (cfg.mode == TcMode::accurate && (cfg.promote < cfg.bk || cfg.promote % cfg.bk != 0))
    return fmt::format("accurate needs promote to be a positive multiple of bk={}, got {}", cfg.bk,
                       cfg.promote);
  if (cfg.mode == TcMode::tf32 && cfg.promote != 0)
    return fmt::format("tf32 takes promote=0 (it never promotes), got {}", cfg.promote);
  if (cfg.group_m < 1) return fmt::format("group_m must be at least 1, got {}", cfg.group_m);
  if (cfg.vec != 1 && cfg.vec != 2 && cfg.vec != 4)
    return fmt::format("vec must be 1, 2 or 4, got {}", cfg.vec);
  if (cfg.vec == 4 && find_entry(cfg)->epi_bufs == 0)
    return fmt::format(
        "vec=4 (the TMA store epilogue) needs shared memory that the variant '{}' has no room "
        "for",
        to_string(cfg));
  return {};
}

TcConfig tc_gemm_default(TcMode mode) {
  // The first row of each mode in the table is its default.
  for (const Entry& e : entries())
    if (e.cfg.mode == mode) return e.cfg;
  TT_FAIL("tc_gemm: the variant table has no {} row.", to_string(mode));
}

bool tc_gemm_device_supported() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return false;
  return major == 9 && minor == 0;
}

std::string tc_gemm_unsupported_reason(const float* x, const float* w, int64_t m, int64_t n,
                                       int64_t k) {
  if (m < 1 || n < 1 || k < 1)
    return fmt::format("M, N and K must be at least 1, got M={} N={} K={}", m, n, k);
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    return fmt::format("M, N and K must fit in 32 bits, got M={} N={} K={}", m, n, k);
  if (k % 4 != 0)
    return fmt::format(
        "K must be a multiple of 4 (the TMA needs 16-byte row pitches), got "
        "K={}",
        k);
  if (reinterpret_cast<uintptr_t>(x) % 16 != 0 || reinterpret_cast<uintptr_t>(w) % 16 != 0)
    return fmt::format("X and W must be 16-byte aligned, got X at {} and W at {}",
                       static_cast<const void*>(x), static_cast<const void*>(w));
  return {};
}

int64_t tc_column_stat_rows(const TcConfig& cfg) {
  return cfg.pingpong ? cfg.bm / cfg.consumers : cfg.bm;
}

namespace {

// Where the chain's trailing residual steps begin (e.count: none).
int residual_suffix(const Epilogue& e) {
  int first = e.count;
  while (first > 0 && detail::is_residual(e.steps[first - 1].op)) --first;
  return first;
}

// The residual steps' rules (tc_epilogue_unsupported_reason): they are combined as the
// tile is stored (store_tile_tma), from a TMA-loaded tile of one tensor.
std::string residual_unsupported_reason(const TcConfig& cfg, const Epilogue& e) {
  const int first = residual_suffix(e);
  for (int i = 0; i < first; ++i) {
    if (detail::is_residual(e.steps[i].op))
      return fmt::format(
          "the tensor-core GEMM combines residual steps as the tile is stored, so they come last "
          "in the chain, got step {} ({}) before step {} ({})",
          i, to_string(e.steps[i].op), first - 1, to_string(e.steps[first - 1].op));
  }
  if (first == e.count) return {};
  if (e.count - first > 2)
    return fmt::format("the tensor-core GEMM combines at most 2 residual steps, got {}",
                       e.count - first);
  const EpilogueStep& r = e.steps[first];
  for (int i = first + 1; i < e.count; ++i) {
    if (e.steps[i].data != r.data || e.steps[i].ld != r.ld)
      return fmt::format(
          "the tensor-core GEMM's residual steps read one tensor, got steps {} and {} with "
          "different operands",
          first, i);
  }
  if (e.kind != EpilogueKind::kPointwise)
    return fmt::format(
        "the tensor-core GEMM applies residual steps only in a chain without a tile stage (they "
        "are combined after it), got '{}'",
        e.str());
  if (cfg.vec != 4)
    return fmt::format(
        "the tensor-core GEMM combines residual steps in its TMA store epilogue (vec=4), got "
        "vec={}",
        cfg.vec);
  if (r.ld < 1 || r.ld % 4 != 0)
    return fmt::format(
        "the residual's row stride must be a positive multiple of 4 floats (the TMA's 16-byte "
        "pitch), got ld={}",
        r.ld);
  const float* base = r.data + e.row0 * r.ld;
  if (r.data != nullptr && reinterpret_cast<uintptr_t>(base) % 16 != 0)
    return fmt::format(
        "the residual must be 16-byte aligned (the TMA's rule), got its row {} at {}", e.row0,
        static_cast<const void*>(base));
  return {};
}

}  // namespace

std::string tc_epilogue_unsupported_reason(const TcConfig& cfg, const Epilogue& e) {
  if (e.count < 0 || e.count > Epilogue::kMaxSteps)
    return fmt::format("an epilogue chain has 0 to {} steps, got {}", int(Epilogue::kMaxSteps),
                       e.count);
  for (int i = 0; i < e.count; ++i) {
    const EpilogueOp op = e.steps[i].op;
    // One operand per row would be 2 * MI loads per thread in the register chain: even
    // those made the accurate consumer spill (tc_gemm_kernel.cuh, apply_chain).
    if (op == EpilogueOp::kAddRow || op == EpilogueOp::kMulRow)
      return fmt::format(
          "the tensor-core GEMM's epilogue reads no per-row operands, got step {} ({})", i,
          to_string(op));
    if ((reads_column(op) || reads_element(op)) && !e.steps[i].data)
      return fmt::format("epilogue step {} ({}) has no operand", i, to_string(op));
  }
  const std::string residual = residual_unsupported_reason(cfg, e);
  if (!residual.empty()) return residual;
  if (e.kind == EpilogueKind::kGroupNorm) {
    // group_norm_rows: whole groups in a tile, each an aligned run of 2^L 8-column chunks.
    const int64_t gs = e.group_size;
    if (gs < 8 || (gs & (gs - 1)) != 0 || cfg.bn % gs != 0)
      return fmt::format(
          "the tensor-core GEMM's group norm needs groups of a power of two from 8 to the "
          "tile's {} columns, got {}",
          cfg.bn, gs);
  }
  if (e.kind == EpilogueKind::kColumnStats) {
    const int64_t rows = tc_column_stat_rows(cfg);
    if (e.row0 % rows != 0)
      return fmt::format(
          "column statistics need the chain's row0 to be a multiple of the {} rows per "
          "partial, got row0={}",
          rows, e.row0);
  }
  return {};
}

void tc_gemm(const TcConfig& cfg, const float* x, const float* w, float* c, int64_t m, int64_t n,
             int64_t k, const Epilogue& epilogue, cudaStream_t stream) {
  int device = 0;
  TT_CUDA_CHECK(cudaGetDevice(&device));
  const tt::cuda::DeviceLimits& lim = tt::cuda::device_limits(device);
  TT_CHECK(lim.cc_major == 9 && lim.cc_minor == 0,
           "tc_gemm: the {} tensor-core GEMM needs an sm_90 GPU (Hopper, compute capability "
           "9.0); device {} has compute capability {}.{}, so use the strict precision there.",
           to_string(cfg.mode), device, lim.cc_major, lim.cc_minor);
  const int sms = lim.sm_count;
  const std::string why = tc_gemm_unsupported_reason(x, w, m, n, k);
  TT_CHECK(why.empty(), "tc_gemm: cannot run C[{}, {}] = X[{}, {}] W[{}, {}]^T: {}.", m, n, m, k, n,
           k, why);
  const std::string bad = tc_config_invalid_reason(cfg);
  TT_CHECK(bad.empty(), "tc_gemm: {}.", bad);
  const Entry* hit = find_entry(cfg);
  const std::string no_ep = tc_epilogue_unsupported_reason(cfg, epilogue);
  TT_CHECK(no_ep.empty(), "tc_gemm: cannot apply the epilogue '{}': {}.", epilogue.str(), no_ep);
  // Plans ask whether the statistics fuse before their buffers exist; a launch needs them.
  TT_CHECK(epilogue.kind != EpilogueKind::kGroupNorm || n % epilogue.group_size == 0,
           "tc_gemm: the group norm's groups of {} channels must divide N={}.", epilogue.group_size,
           n);
  TT_CHECK(epilogue.kind != EpilogueKind::kColumnStats ||
               (epilogue.part_mean != nullptr && epilogue.part_m2 != nullptr),
           "tc_gemm: column statistics need both part_mean and part_m2.");

  TcParams p{};
  p.c = c;
  p.m = int(m);
  p.n = int(n);
  p.k = int(k);
  // A ping-pong consumer owns bm / consumers rows of a tile; the X box is that tall.
  const int tile_rows = cfg.pingpong ? cfg.bm / cfg.consumers : cfg.bm;
  p.tiles_m = int((m + tile_rows - 1) / tile_rows);
  p.tiles_n = int((n + cfg.bn - 1) / cfg.bn);
  p.group = cfg.group_m;
  p.raster_n = cfg.raster_n ? 1 : 0;
  p.promote_blocks = cfg.mode == TcMode::accurate ? cfg.promote / cfg.bk : 0;
  // vec 4 needs what the TMA needs of C (16-byte rows and base); else vec 2 or 1 runs.
  const auto c_addr = reinterpret_cast<uintptr_t>(c);
  p.tma_store = (cfg.vec == 4 && n % 4 == 0 && c_addr % 16 == 0) ? 1 : 0;
  p.vec2 = (cfg.vec >= 2 && n % 2 == 0 && c_addr % 8 == 0) ? 1 : 0;
  p.ep = epilogue;
  // The trailing residual steps leave the chain: the store combines them (store_tile_tma).
  const int first_residual = residual_suffix(epilogue);
  p.ep.count = first_residual;
  p.res_steps = epilogue.count - first_residual;
  for (int i = first_residual; i < epilogue.count; ++i)
    if (epilogue.steps[i].op == EpilogueOp::kMulResidual) p.res_mul |= 1 << (i - first_residual);
  const EpilogueStep* res = p.res_steps > 0 ? &epilogue.steps[first_residual] : nullptr;
  TT_CHECK(res == nullptr || p.tma_store,
           "tc_gemm: the epilogue '{}' combines its residual in the TMA store epilogue, which "
           "needs N % 4 == 0 and C 16-byte aligned; got N={} and C at {}.",
           epilogue.str(), n, static_cast<const void*>(c));
  TT_CHECK(res == nullptr || res->ld >= n,
           "tc_gemm: the residual's rows are ld={} floats apart, fewer than N={}.",
           res ? res->ld : 0, n);
  // tf32: the TMA rounds X and W to nearest TF32 as it loads them (a TFLOAT32 map), so the
  // tensor cores see rounded operands instead of truncating them: 2.6e-4 relative L2 vs
  // float64 instead of 7.0e-4 at the seed shapes (cuBLASLt TF32: 2.6e-4), at no cost.
  // accurate splits the raw values itself.
  const CUtensorMapDataType in_type =
      cfg.mode == TcMode::tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUtensorMap mx = make_map(x, m, k, tile_rows, in_type);
  // Each CTA of a cluster loads its 1 / cluster of W's tile rows.
  const CUtensorMap mw = make_map(w, n, k, cfg.bn / cfg.cluster, in_type);
  // A consumer warpgroup's rows, 32 columns: one TMA store of the epilogue (else unused).
  const CUtensorMap mc = p.tma_store ? make_map(c, m, n, cfg.bm / cfg.consumers) : mx;
  // The residual's rows of this GEMM, the same boxes as C's, loaded into C's buffers.
  const CUtensorMap mr =
      res ? make_map(res->data + epilogue.row0 * res->ld, m, n, cfg.bm / cfg.consumers,
                     CU_TENSOR_MAP_DATA_TYPE_FLOAT32, res->ld)
          : mx;
  (res ? hit->fn_residual : hit->fn)(cfg, mx, mw, mc, mr, p, sms, stream);
}

}  // namespace tt::ops::cuda::gemm::sm90
