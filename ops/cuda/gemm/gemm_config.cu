// The GEMM config table, its text form and the untuned defaults.
#include "ops/cuda/gemm/gemm_config.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <sstream>

#include "core/error.h"
#include "ops/cuda/gemm/tiled_gemm_variants.h"

namespace tt::ops::cuda::gemm {

std::string GemmProblem::str() const { return fmt::format("m={},n={},k={}", m, n, k); }

const std::vector<GemmConfig>& own_variants() {
  static const std::vector<GemmConfig> table = [] {
    std::vector<GemmConfig> t;
#define TT_GEMM_CONFIG_ROW(BM, BN, BK, TM, TN, VEC, MINB) \
  t.push_back(GemmConfig{GemmImpl::kOwn, BM, BN, BK, TM, TN, VEC, 2, 0});
    TT_GEMM_OWN_VARIANTS(TT_GEMM_CONFIG_ROW)
#undef TT_GEMM_CONFIG_ROW
    return t;
  }();
  return table;
}

bool GemmConfig::valid(const GemmProblem& p) const {
  if (chunk_rows < 0 || tail_rows < 0) return false;
  if (impl == GemmImpl::kCublasLt) {
    return cublas_algo_index >= 0 && (tail_rows == 0 || (chunk_rows == 0 && 2 * tail_rows <= p.m));
  }
  if (tail_rows > 0) return false;
  if (vec > p.align) return false;
  GemmConfig tile = *this;
  tile.chunk_rows = 0;  // the table lists tile shapes; chunking is orthogonal
  for (const GemmConfig& c : own_variants()) {
    if (c == tile) return true;
  }
  return false;
}

bool GemmConfig::operator==(const GemmConfig& o) const {
  if (impl != o.impl || chunk_rows != o.chunk_rows || tail_rows != o.tail_rows) return false;
  if (impl == GemmImpl::kCublasLt) return cublas_algo_index == o.cublas_algo_index;
  return bm == o.bm && bn == o.bn && bk == o.bk && tm == o.tm && tn == o.tn && vec == o.vec &&
         stages == o.stages;
}

std::string GemmConfig::str() const {
  const std::string chunk = (chunk_rows > 0 ? fmt::format(",chunk={}", chunk_rows) : "") +
                            (tail_rows > 0 ? fmt::format(",tail={}", tail_rows) : "");
  if (impl == GemmImpl::kCublasLt) {
    return fmt::format("impl=cublaslt,algo={}{}", cublas_algo_index, chunk);
  }
  return fmt::format("impl=own,bm={},bn={},bk={},tm={},tn={},vec={},stages={}{}", bm, bn, bk, tm,
                     tn, vec, stages, chunk);
}

GemmConfig GemmConfig::parse(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.find('=');
    TT_CHECK(eq != std::string::npos && eq > 0,
             "gemm config \"{}\": expected key=value items separated by commas but got \"{}\"",
             text, item);
    kv[item.substr(0, eq)] = item.substr(eq + 1);
  }
  auto number = [&](const char* key) {
    auto it = kv.find(key);
    TT_CHECK(it != kv.end(), "gemm config \"{}\" has no \"{}\"", text, key);
    try {
      size_t used = 0;
      const int v = std::stoi(it->second, &used);
      if (used == it->second.size()) return v;
    } catch (const std::exception&) {
    }
    TT_FAIL("gemm config \"{}\": {} must be an integer but is \"{}\"", text, key, it->second);
  };
  const auto impl = kv.find("impl");
  TT_CHECK(impl != kv.end(), "gemm config \"{}\" has no \"impl\"", text);
  const int64_t chunk = kv.count("chunk") ? number("chunk") : 0;
  TT_CHECK(chunk >= 0, "gemm config \"{}\": chunk must be >= 0", text);
  const int64_t tail = kv.count("tail") ? number("tail") : 0;
  TT_CHECK(tail >= 0, "gemm config \"{}\": tail must be >= 0", text);
  if (impl->second == "cublaslt") return cublaslt(number("algo"), chunk, tail);
  TT_CHECK(tail == 0, "gemm config \"{}\": tail splits are for cuBLASLt only", text);
  TT_CHECK(impl->second == "own", "gemm config \"{}\": impl must be own or cublaslt but is \"{}\"",
           text, impl->second);
  return GemmConfig{GemmImpl::kOwn, number("bm"),     number("bn"),
                    number("bk"),   number("tm"),     number("tn"),
                    number("vec"),  number("stages"), 0,
                    chunk};
}

GemmConfig GemmConfig::cublaslt(int algo_index, int64_t chunk_rows, int64_t tail_rows) {
  GemmConfig c;
  c.impl = GemmImpl::kCublasLt;
  c.cublas_algo_index = algo_index;
  c.chunk_rows = chunk_rows;
  c.tail_rows = tail_rows;
  return c;
}

GemmConfig GemmConfig::default_for(const GemmProblem&) { return cublaslt(0); }

GemmConfig GemmConfig::own_default_for(const GemmProblem& p) {
  // Large problems: the 128x128 tile with 8x8 per thread; small ones: 64x64 so that
  // more CTAs share the SMs. The VEC 1 rows catch any K and any alignment.
  // "Small" is fewer 128x128 tiles than one wave at two CTAs per SM on a 132-SM H100.
  const int64_t tiles = ((p.m + 127) / 128) * ((p.n + 127) / 128);
  const bool small = tiles < 2 * 132;
  const int vec = p.align >= 4 ? 4 : 1;
  const int tile = small ? 64 : 128;
  return GemmConfig{GemmImpl::kOwn, tile, tile, 8, 8, 8, vec, 2, 0};
}

std::vector<GemmConfig> candidates(const GemmProblem& p, int cublas_candidates) {
  std::vector<GemmConfig> out;
  for (const GemmConfig& c : own_variants()) {
    if (c.valid(p)) out.push_back(c);
  }
  for (int i = 0; i < cublas_candidates; ++i) out.push_back(GemmConfig::cublaslt(i));
  return out;
}

int pointer_align(std::initializer_list<const void*> ptrs) {
  int align = 4;
  for (const void* p : ptrs) {
    if (p == nullptr) continue;
    const auto a = reinterpret_cast<uintptr_t>(p);
    if (a % 16 != 0) align = align < 2 ? align : 2;
    if (a % 8 != 0) align = 1;
  }
  return align;
}

}  // namespace tt::ops::cuda::gemm
