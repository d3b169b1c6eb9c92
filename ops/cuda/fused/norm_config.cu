// The configuration spaces of the normalisation launchers (ops/cuda/fused/norm_passes.h):
// the tables generated from ops/cuda/norm/norm_variants.h, validity, defaults,
// candidates, and the text form the autotuner stores.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "ops/cuda/fused/norm_passes.h"
#include "ops/cuda/norm/norm_variants.h"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {
namespace {

const char* kind_name(SegmentKind k) {
  switch (k) {
    case SegmentKind::kSubwarp:
      return "subwarp";
    case SegmentKind::kBlock:
      return "block";
    case SegmentKind::kStream:
      return "stream";
    case SegmentKind::kCluster:
      return "cluster";
    case SegmentKind::kPipe:
      return "pipe";
    case SegmentKind::kSplit:
      return "split";
  }
  return "?";
}

// "a=1,b=2" -> {a: "1", b: "2"}; every key of `keys` must appear exactly once.
std::map<std::string, std::string> parse_fields(const char* what, const std::string& text,
                                                const std::vector<std::string>& keys) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    const size_t eq = item.find('=');
    TT_CHECK(eq != std::string::npos && eq > 0,
             "{} config: expected key=value pairs separated by commas but got \"{}\"", what, text);
    const std::string key = item.substr(0, eq);
    TT_CHECK(std::find(keys.begin(), keys.end(), key) != keys.end(),
             "{} config: unknown key \"{}\" in \"{}\"", what, key, text);
    TT_CHECK(out.emplace(key, item.substr(eq + 1)).second,
             "{} config: key \"{}\" appears twice in \"{}\"", what, key, text);
    pos = end + 1;
  }
  for (const auto& k : keys)
    TT_CHECK(out.count(k), "{} config: key \"{}\" is missing in \"{}\"", what, k, text);
  return out;
}

int parse_int(const char* what, const std::string& key, const std::string& value) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  TT_CHECK(used == value.size() && !value.empty(),
           "{} config: {} must be an integer but got \"{}\"", what, key, value);
  return v;
}

template <typename C>
bool in_table(const C& cfg) {
  const auto& all = C::all();
  return std::find(all.begin(), all.end(), cfg) != all.end();
}

}  // namespace

int vec_align(std::initializer_list<const void*> ptrs) {
  int vec = 4;
  for (const void* p : ptrs) {
    if (!p) continue;
    const auto a = reinterpret_cast<uintptr_t>(p);
    while (vec > 1 && a % (vec * sizeof(float)) != 0) vec /= 2;
  }
  return vec;
}

// ---------------------------------------------------------------------------
int64_t SegmentConfig::capacity() const {
  if (kind == SegmentKind::kStream || kind == SegmentKind::kSplit) return 0;
  return int64_t(lanes) * vec * items * cluster;
}

bool SegmentConfig::operator==(const SegmentConfig& o) const {
  return kind == o.kind && threads == o.threads && lanes == o.lanes && vec == o.vec &&
         items == o.items && cluster == o.cluster && buffers == o.buffers;
}

const std::vector<SegmentConfig>& SegmentConfig::all() {
  static const std::vector<SegmentConfig> table = {
#define TT_NORM_X(kind, threads, lanes, vec, items, cluster, buffers) \
  SegmentConfig{SegmentKind::kind, threads, lanes, vec, items, cluster, buffers},
      TT_NORM_SEGMENT_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

bool SegmentConfig::valid(const SegmentProblem& p) const {
  if (!in_table(*this)) return false;
  if (p.length < 1 || p.segments < 0) return false;
  if (vec > p.align || p.length % vec != 0) return false;
  int64_t blocks = p.segments;
  if (kind == SegmentKind::kSubwarp) {
    const int64_t per_block = int64_t(threads / lanes) * std::max(buffers, 1);
    blocks = (p.segments + per_block - 1) / per_block;
  }
  if (kind == SegmentKind::kCluster || kind == SegmentKind::kSplit) blocks = p.segments * cluster;
  if (kind == SegmentKind::kPipe) blocks = 0;  // persistent: one cluster per free GPC slot
  if (blocks > INT_MAX) return false;
  return kind == SegmentKind::kStream || kind == SegmentKind::kSplit || capacity() >= p.length;
}

std::vector<SegmentConfig> SegmentConfig::candidates(const SegmentProblem& p) {
  // On-chip variants are kept when they hold less than 4x the segment (beyond that
  // threads only idle), or, per vector width, the tightest ones when none does.
  // Streaming variants only pay off for long segments, or when nothing else fits.
  int64_t tightest[5] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  for (const auto& c : all())
    if (c.valid(p) && c.kind != SegmentKind::kStream && c.kind != SegmentKind::kSplit)
      tightest[c.vec] = std::min(tightest[c.vec], c.capacity());
  const bool on_chip = *std::min_element(tightest, tightest + 5) != INT64_MAX;
  std::vector<SegmentConfig> out;
  for (const auto& c : all()) {
    if (!c.valid(p)) continue;
    if (c.kind == SegmentKind::kStream) {
      if (p.length >= 1024 || !on_chip) out.push_back(c);
    } else if (c.kind == SegmentKind::kSplit) {
      // Only worth a cluster when every CTA gets at least one full tile.
      if (p.length >= int64_t(c.cluster) * c.threads * c.vec * c.items) out.push_back(c);
    } else if (c.capacity() < 4 * p.length || c.capacity() == tightest[c.vec]) {
      out.push_back(c);
    }
  }
  return out;
}

SegmentConfig SegmentConfig::default_for(const SegmentProblem& p) {
  // Preferred kind by length: a few lanes for short segments, a block while a segment
  // fits one block's registers, else streaming. Within a kind: widest vector,
  // tightest fit, then the table's order, which lists the measured favourites first.
  // Measured on an H200 at 1 MiB slices: stream 5.38 ms, register clusters 6.8-9.5
  // ms (their loads and stores do not overlap), so clusters are not a default. The
  // pipe kind has not yet run on a device: candidates() offers it to the autotuner,
  // which verifies it before it can win, but it is no default until measured.
  struct Pref {
    SegmentKind kind;
    int64_t max_length;
  };
  const Pref order[] = {{SegmentKind::kSubwarp, 1024},
                        {SegmentKind::kBlock, 32768},
                        {SegmentKind::kStream, INT64_MAX}};
  const auto table = candidates(p);  // in the order of all()
  for (const auto& pref : order) {
    if (p.length > pref.max_length) continue;
    int best = -1;
    for (int i = 0; i < static_cast<int>(table.size()); ++i) {
      const auto& c = table[i];
      if (c.kind != pref.kind) continue;
      const auto key = [&](int j) {
        return std::make_tuple(-table[j].vec, table[j].capacity(), j);
      };
      if (best < 0 || key(i) < key(best)) best = i;
    }
    if (best >= 0) return table[best];
  }
  // Unreachable for a valid problem: stream variants with vec 1 fit everything.
  TT_FAIL("segment norm: no compiled variant fits {} segments of length {} (alignment {})",
          p.segments, p.length, p.align);
}

std::string SegmentConfig::str() const {
  return fmt::format("kind={},threads={},lanes={},vec={},items={},cluster={},buffers={}",
                     kind_name(kind), threads, lanes, vec, items, cluster, buffers);
}

SegmentConfig SegmentConfig::parse(const std::string& text) {
  const char* what = "segment norm";
  // `buffers` came later: text without it (kinds other than pipe) means 0.
  const std::string full = text.find("buffers=") == std::string::npos ? text + ",buffers=0" : text;
  auto f =
      parse_fields(what, full, {"kind", "threads", "lanes", "vec", "items", "cluster", "buffers"});
  SegmentConfig c;
  bool known = false;
  for (SegmentKind k : {SegmentKind::kSubwarp, SegmentKind::kBlock, SegmentKind::kStream,
                        SegmentKind::kCluster, SegmentKind::kPipe, SegmentKind::kSplit}) {
    if (f["kind"] == kind_name(k)) c.kind = k, known = true;
  }
  TT_CHECK(known,
           "{} config: kind must be subwarp, block, stream, cluster, pipe or split but got \"{}\"",
           what, f["kind"]);
  c.threads = parse_int(what, "threads", f["threads"]);
  c.lanes = parse_int(what, "lanes", f["lanes"]);
  c.vec = parse_int(what, "vec", f["vec"]);
  c.items = parse_int(what, "items", f["items"]);
  c.cluster = parse_int(what, "cluster", f["cluster"]);
  c.buffers = parse_int(what, "buffers", f["buffers"]);
  return c;
}

// ---------------------------------------------------------------------------
bool ColumnStatsConfig::operator==(const ColumnStatsConfig& o) const {
  return threads == o.threads && col_threads == o.col_threads && vec == o.vec && items == o.items &&
         chunk_rows == o.chunk_rows;
}

const std::vector<ColumnStatsConfig>& ColumnStatsConfig::all() {
  static const std::vector<ColumnStatsConfig> table = {
#define TT_NORM_X(threads, col_threads, vec, items, chunk_rows) \
  ColumnStatsConfig{threads, col_threads, vec, items, chunk_rows},
      TT_NORM_COLUMN_STATS_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

bool ColumnStatsConfig::valid(const ColumnProblem& p) const {
  if (!in_table(*this)) return false;
  if (p.rows < 1 || p.cols < 1) return false;
  if (vec > p.align || p.cols % vec != 0) return false;
  const int64_t col_blocks =
      (p.cols + int64_t(col_threads) * vec - 1) / (int64_t(col_threads) * vec);
  const int64_t parts = (p.rows + chunk_rows - 1) / chunk_rows;
  return col_blocks <= 65535 && parts <= INT_MAX;
}

std::vector<ColumnStatsConfig> ColumnStatsConfig::candidates(const ColumnProblem& p) {
  std::vector<ColumnStatsConfig> out;
  for (const auto& c : all())
    if (c.valid(p)) out.push_back(c);
  return out;
}

ColumnStatsConfig ColumnStatsConfig::default_for(const ColumnProblem& p) {
  const ColumnStatsConfig* best = nullptr;
  for (const auto& c : all()) {
    if (!c.valid(p)) continue;
    if (!best || c.vec > best->vec) best = &c;  // first of the widest vector
  }
  TT_CHECK(best, "column stats: no compiled variant fits [{}, {}] (alignment {})", p.rows, p.cols,
           p.align);
  return *best;
}

std::string ColumnStatsConfig::str() const {
  return fmt::format("threads={},col_threads={},vec={},items={},chunk_rows={}", threads,
                     col_threads, vec, items, chunk_rows);
}

ColumnStatsConfig ColumnStatsConfig::parse(const std::string& text) {
  const char* what = "column stats";
  auto f = parse_fields(what, text, {"threads", "col_threads", "vec", "items", "chunk_rows"});
  return {parse_int(what, "threads", f["threads"]),
          parse_int(what, "col_threads", f["col_threads"]), parse_int(what, "vec", f["vec"]),
          parse_int(what, "items", f["items"]), parse_int(what, "chunk_rows", f["chunk_rows"])};
}

int64_t column_stats_parts(const ColumnStatsConfig& cfg, int64_t rows) {
  return (rows + cfg.chunk_rows - 1) / cfg.chunk_rows;
}

// ---------------------------------------------------------------------------
bool AffineConfig::operator==(const AffineConfig& o) const {
  return threads == o.threads && vec == o.vec && items == o.items;
}

const std::vector<AffineConfig>& AffineConfig::all() {
  static const std::vector<AffineConfig> table = {
#define TT_NORM_X(threads, vec, items) AffineConfig{threads, vec, items},
      TT_NORM_AFFINE_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

bool AffineConfig::valid(const AffineProblem& p) const {
  if (!in_table(*this)) return false;
  if (p.total < 0 || p.channels < 1 || p.inner < 1) return false;
  if (vec > p.align) return false;
  if ((p.inner == 1 ? p.channels : p.inner) % vec != 0) return false;
  const int64_t per_block = int64_t(threads) * vec * items;
  return (p.total + per_block - 1) / per_block <= INT_MAX;
}

std::vector<AffineConfig> AffineConfig::candidates(const AffineProblem& p) {
  std::vector<AffineConfig> out;
  for (const auto& c : all())
    if (c.valid(p)) out.push_back(c);
  return out;
}

AffineConfig AffineConfig::default_for(const AffineProblem& p) {
  const AffineConfig* best = nullptr;
  for (const auto& c : all()) {
    if (!c.valid(p)) continue;
    if (!best || c.vec > best->vec) best = &c;  // first of the widest vector
  }
  TT_CHECK(best, "channel affine: no compiled variant fits {} floats of {} channels x {}", p.total,
           p.channels, p.inner);
  return *best;
}

std::string AffineConfig::str() const {
  return fmt::format("threads={},vec={},items={}", threads, vec, items);
}

AffineConfig AffineConfig::parse(const std::string& text) {
  const char* what = "channel affine";
  auto f = parse_fields(what, text, {"threads", "vec", "items"});
  return {parse_int(what, "threads", f["threads"]), parse_int(what, "vec", f["vec"]),
          parse_int(what, "items", f["items"])};
}

// ---------------------------------------------------------------------------
void check_segment_launch(const char* what, const SegmentConfig& cfg, const SegmentProblem& p,
                          std::initializer_list<const void*> ptrs) {
  TT_CHECK(p.length >= 1 && p.segments >= 0,
           "{}: expected a positive segment length and a non-negative count but got {} "
           "segments of length {}",
           what, p.segments, p.length);
  TT_CHECK(vec_align(ptrs) >= cfg.vec,
           "{}: config {} loads {} floats at a time but a pointer is only aligned to {}", what,
           cfg.str(), cfg.vec, vec_align(ptrs));
  TT_CHECK(cfg.valid(p), "{}: config {} is not valid for {} segments of length {} (alignment {})",
           what, cfg.str(), p.segments, p.length, p.align);
}

}  // namespace tt::ops::cuda::norm
