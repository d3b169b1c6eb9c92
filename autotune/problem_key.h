// Problem keys: what a kernel's best config depends on, as "m=1024,n=8192,k=8192,
// precision=strict". A field whose value is an integer is numeric (a size); any other
// value is categorical (precision=strict, layout=nt). Kernels build keys with
// ProblemKey().add("m", m).add_align_floats(4).add_precision().str() so that the tuner
// and the run-time lookup spell a problem the same way; field order is the order of add().
//
// problem_distance() is the metric of the nearest-config rule in autotune/lookup.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/precision.h"

namespace tt::autotune {

class ProblemKey {
 public:
  struct Field {
    std::string name;
    std::string text;               // the value as written
    std::optional<int64_t> number;  // set for numeric fields
  };

  ProblemKey& add(const std::string& name, int64_t value);
  ProblemKey& add(const std::string& name, const std::string& value);
  ProblemKey& add(const std::string& name, const char* value) {
    return add(name, std::string(value));
  }
  // "align=16B": the widest access the operands' addresses allow, given in floats (4:
  // 16 bytes). Categorical: a config tuned for aligned data is never offered to
  // misaligned data by the nearest-problem rule.
  ProblemKey& add_align_floats(int floats);
  // "precision=strict": the precision mode the kernel computes in. Every kernel of this
  // build computes strict float32 whatever tt::current_precision() asks, so that is
  // the default; a kernel that honours the mode passes it.
  ProblemKey& add_precision(Precision p = Precision::strict);

  // The key of a strict-float32 kernel's problem: add_align_floats(floats),
  // add_precision(), then str().
  std::string str_aligned(int floats);

  // Reads "m=1024,precision=strict"; throws tt::Error naming the bad field.
  static ProblemKey parse(std::string_view text);
  std::string str() const;

  const std::vector<Field>& fields() const { return fields_; }
  const Field* find(std::string_view name) const;
  // Product of the numeric fields (1 when there are none): "how large" a problem is.
  double size() const;

 private:
  std::vector<Field> fields_;
};

// Distance between two problems of one kernel, or nullopt when they are not
// comparable: comparable keys have the same categorical fields with equal values and
// the same set of numeric field names, and a numeric value <= 0 must match exactly.
// The distance is the sum over numeric fields of |log2(a / b)|.
std::optional<double> problem_distance(const ProblemKey& a, const ProblemKey& b);

}  // namespace tt::autotune
