// Launcher of the sm90 tensor-core GEMM family: tensor maps, the variant table, the
// checks that turn a wrong device, config or problem into a tt::Error sentence.
// Compiled for sm_90a only (ops/CMakeLists.txt), since wgmma and setmaxnreg exist
// nowhere else.
#include "ops/cuda/gemm/sm90/tc_gemm.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <fmt/format.h>

#include <atomic>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/gemm/sm90/tc_gemm_kernel.cuh"
#include "ops/cuda/gemm/sm90/tc_gemm_variants.h"

namespace tt::ops::cuda::gemm::sm90 {

const char* to_string(TcMode mode) { return mode == TcMode::accurate ? "accurate" : "tf32"; }

std::string to_string(const TcConfig& cfg) {
  return fmt::format("{} bm={} bn={} bk={} stages={} consumers={} promote={} {} group_m={} {}",
                     to_string(cfg.mode), cfg.bm, cfg.bn, cfg.bk, cfg.stages, cfg.consumers,
                     cfg.promote, cfg.pingpong ? "pingpong" : "cooperative", cfg.group_m,
                     cfg.persistent ? "persistent" : "grid");
}

namespace {

using LaunchFn = void (*)(const TcConfig&, const CUtensorMap&, const CUtensorMap&, const TcParams&,
                          int sms, cudaStream_t);

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

// A row-major [rows, k] float matrix as a 2-D tensor map whose box is one 128-byte
// swizzle panel (32 floats of K) by `box_rows` rows.
CUtensorMap make_map(const float* p, int64_t rows, int64_t k, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * sizeof(float)};
  const cuuint32_t box[2] = {32, cuuint32_t(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  CUresult r =
      encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(p), dims, strides,
                     box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  TT_CHECK(r == CUDA_SUCCESS,
           "tc_gemm: cuTensorMapEncodeTiled refused a [{}, {}] float matrix at {} with a "
           "32 x {} box (CUresult {}).",
           rows, k, static_cast<const void*>(p), box_rows, static_cast<int>(r));
  return map;
}

template <bool kAccurate, int BM, int BN, int BK, int STAGES, int CONSUMERS, int PROMOTE, bool PP>
void launch(const TcConfig& cfg, const CUtensorMap& mx, const CUtensorMap& mw, const TcParams& p,
            int sms, cudaStream_t stream) {
  using T = TcTraits<kAccurate, BM, BN, BK, STAGES, CONSUMERS, PROMOTE, PP>;
  auto kernel = tc_gemm_kernel<kAccurate, BM, BN, BK, STAGES, CONSUMERS, PROMOTE, PP>;
  // Raising the dynamic shared-memory limit is per function and device; once each.
  static std::atomic<uint64_t> raised{0};
  int device = 0;
  TT_CUDA_CHECK(cudaGetDevice(&device));
  const uint64_t bit = uint64_t(1) << (device & 63);
  if (!(raised.load() & bit)) {
    TT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes));
    raised.fetch_or(bit);
  }
  const int tiles = p.tiles_m * p.tiles_n;
  const int grid = cfg.persistent ? std::min(tiles, sms) : tiles;
  kernel<<<grid, T::kThreads, T::kSmemBytes, stream>>>(mx, mw, p);
  TT_CUDA_CHECK_LAUNCH();
}

struct Entry {
  TcConfig cfg;
  LaunchFn fn;
};

constexpr bool is_accurate(TcMode m) { return m == TcMode::accurate; }

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
#define TT_TC_ENTRY(mode, bm, bn, bk, stages, consumers, promote, pingpong)       \
  Entry{TcConfig{TcMode::mode, bm, bn, bk, stages, consumers, promote, pingpong}, \
        &launch<is_accurate(TcMode::mode), bm, bn, bk, stages, consumers, promote, pingpong>},
      TT_TC_GEMM_VARIANTS(TT_TC_ENTRY)
#undef TT_TC_ENTRY
  };
  return table;
}

bool same_kernel(const TcConfig& a, const TcConfig& b) {
  return a.mode == b.mode && a.bm == b.bm && a.bn == b.bn && a.bk == b.bk && a.stages == b.stages &&
         a.consumers == b.consumers && a.promote == b.promote && a.pingpong == b.pingpong;
}

}  // namespace

const std::vector<TcConfig>& tc_gemm_variants() {
  static const std::vector<TcConfig> list = [] {
    std::vector<TcConfig> v;
    for (const Entry& e : entries()) v.push_back(e.cfg);
    return v;
  }();
  return list;
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

void tc_gemm(const TcConfig& cfg, const float* x, const float* w, float* c, int64_t m, int64_t n,
             int64_t k, const TcEpilogue& epilogue, cudaStream_t stream) {
  int device = 0, major = 0, minor = 0, sms = 0;
  TT_CUDA_CHECK(cudaGetDevice(&device));
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  TT_CHECK(major == 9 && minor == 0,
           "tc_gemm: the {} tensor-core GEMM needs an sm_90 GPU (Hopper, compute capability "
           "9.0); device {} has compute capability {}.{}, so use the strict precision there.",
           to_string(cfg.mode), device, major, minor);
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::string why = tc_gemm_unsupported_reason(x, w, m, n, k);
  TT_CHECK(why.empty(), "tc_gemm: cannot run C[{}, {}] = X[{}, {}] W[{}, {}]^T: {}.", m, n, m, k, n,
           k, why);
  TT_CHECK(cfg.group_m >= 1, "tc_gemm: group_m must be at least 1, got {}.", cfg.group_m);
  const Entry* hit = nullptr;
  for (const Entry& e : entries())
    if (same_kernel(e.cfg, cfg)) hit = &e;
  TT_CHECK(hit != nullptr, "tc_gemm: no compiled variant matches the config '{}'.", to_string(cfg));

  TcParams p{};
  p.c = c;
  p.m = int(m);
  p.n = int(n);
  p.k = int(k);
  // A ping-pong consumer owns bm / consumers rows of a tile; the X box is that tall.
  const int tile_rows = cfg.pingpong ? cfg.bm / cfg.consumers : cfg.bm;
  p.tiles_m = int((m + tile_rows - 1) / tile_rows);
  p.tiles_n = int((n + cfg.bn - 1) / cfg.bn);
  p.group_m = cfg.group_m;
  p.vec2 = (n % 2 == 0 && reinterpret_cast<uintptr_t>(c) % 8 == 0) ? 1 : 0;
  p.bias = epilogue.bias;
  p.scale = epilogue.scale;
  p.act = static_cast<int>(epilogue.act);
  const CUtensorMap mx = make_map(x, m, k, tile_rows);
  const CUtensorMap mw = make_map(w, n, k, cfg.bn);
  hit->fn(cfg, mx, mw, p, sms, stream);
}

}  // namespace tt::ops::cuda::gemm::sm90
