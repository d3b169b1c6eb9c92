#include "core/overlap.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tt {
namespace {

// Views larger than this are not enumerated: their overlap is decided conservatively
// (any shared byte range counts as overlap), which refuses a rare, odd write instead of
// sorting gigabytes of offsets.
constexpr int64_t kEnumerateLimit = int64_t(1) << 26;

struct Span {
  int64_t lo, hi;  // bytes [lo, hi) of the storage that the elements touch
};

Span byte_span(const Tensor& t) {
  const int64_t es = static_cast<int64_t>(dtype_size(t.dtype()));
  int64_t lo = t.offset(), hi = t.offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t reach = (t.size(d) - 1) * t.stride(d);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo * es, (hi + 1) * es};
}

// The byte offset of every element, sorted.
std::vector<int64_t> sorted_byte_offsets(const Tensor& t) {
  const int64_t es = static_cast<int64_t>(dtype_size(t.dtype()));
  const int64_t n = t.numel(), rank = t.dim();
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  int64_t off = t.offset();
  for (int64_t i = 0; i < n; ++i) {
    out.push_back(off * es);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < t.size(d)) {
        off += t.stride(d);
        break;
      }
      off -= t.stride(d) * (t.size(d) - 1);
      idx[d] = 0;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// No two dims (size > 1) can reach the same element when, sorted by stride, each
// stride exceeds the furthest reach of the smaller ones: every view a contiguous
// tensor's view ops make (permute, narrow, select, unsqueeze) passes this.
bool provably_non_overlapping(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims.emplace_back(t.stride(d) < 0 ? -t.stride(d) : t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += stride * (size - 1);
  }
  return true;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.offset() != b.offset() || a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

std::string write_prefix(const char* op) { return op ? fmt::format("{}: ", op) : std::string(); }

[[noreturn]] void fail_shared(const char* op) {
  TT_FAIL(
      "{}unsupported operation: some elements of the input tensor and the written-to tensor "
      "refer to a single memory location. Please clone() the tensor before performing the "
      "operation.",
      write_prefix(op));
}

}  // namespace

bool has_internal_overlap(const Tensor& t) {
  if (!t.defined() || t.numel() <= 1) return false;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1 && t.stride(d) == 0) return true;
  }
  if (provably_non_overlapping(t)) return false;
  if (t.numel() > kEnumerateLimit) return true;
  const std::vector<int64_t> offsets = sorted_byte_offsets(t);
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

MemOverlap overlap_status(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.numel() == 0 || b.numel() == 0) return MemOverlap::kNone;
  if (!a.shares_storage_with(b)) return MemOverlap::kNone;
  const Span sa = byte_span(a), sb = byte_span(b);
  if (sa.hi <= sb.lo || sb.hi <= sa.lo) return MemOverlap::kNone;
  if (same_layout(a, b)) return MemOverlap::kFull;
  if (a.numel() > kEnumerateLimit || b.numel() > kEnumerateLimit) return MemOverlap::kPartial;
  const std::vector<int64_t> oa = sorted_byte_offsets(a), ob = sorted_byte_offsets(b);
  const int64_t ea = static_cast<int64_t>(dtype_size(a.dtype()));
  const int64_t eb = static_cast<int64_t>(dtype_size(b.dtype()));
  size_t i = 0, j = 0;
  while (i < oa.size() && j < ob.size()) {
    if (oa[i] + ea <= ob[j]) {
      ++i;
    } else if (ob[j] + eb <= oa[i]) {
      ++j;
    } else {
      return MemOverlap::kPartial;
    }
  }
  return MemOverlap::kNone;
}

void assert_no_internal_overlap(const char* op, const Tensor& out) {
  TT_CHECK(!has_internal_overlap(out),
           "{}unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.",
           write_prefix(op));
}

void assert_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in) {
  if (overlap_status(out, in) == MemOverlap::kPartial) fail_shared(op);
}

void assert_no_overlap(const char* op, const Tensor& out, const Tensor& in) {
  if (overlap_status(out, in) != MemOverlap::kNone) fail_shared(op);
}

}  // namespace tt
