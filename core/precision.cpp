#include "core/precision.h"

#include "core/error.h"

namespace tt {
namespace {
thread_local Precision tls_precision = Precision::strict;
}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::strict:
      return "strict";
    case Precision::tf32:
      return "tf32";
    case Precision::accurate:
      return "accurate";
  }
  return "strict";
}

Precision parse_precision(std::string_view text) {
  for (Precision p : {Precision::strict, Precision::tf32, Precision::accurate}) {
    if (text == precision_name(p)) return p;
  }
  // Echo a short excerpt only: the text may be anything a user or a file supplied.
  const bool long_text = text.size() > 32;
  TT_FAIL("unknown precision '{}{}'; expected strict, tf32 or accurate", text.substr(0, 32),
          long_text ? "..." : "");
}

Precision current_precision() { return tls_precision; }

PrecisionGuard::PrecisionGuard(Precision p) : previous_(tls_precision) { tls_precision = p; }

PrecisionGuard::~PrecisionGuard() { tls_precision = previous_; }

}  // namespace tt
