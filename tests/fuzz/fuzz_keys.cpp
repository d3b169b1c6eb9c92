// Fuzzes the small text parsers of the autotuner: Config::parse ("impl=own,bm=128"),
// ProblemKey::parse ("m=1024,precision=strict") and parse_compute_capability ("sm_90").
// The first byte picks the parser, the rest is its text. Only tt::Error may leave
// them. Properties: what parses prints as text that parses back to the same value (and
// prints the same again); a problem key is at distance 0 from itself.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "autotune/config.h"
#include "autotune/device_identity.h"
#include "autotune/problem_key.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using tt::fuzz::require;

// The round trip both text types share: nullopt when `text` does not parse (only
// tt::Error may say so), else the parsed value and the one its printed text parses
// back to, which must print the same.
template <typename T>
std::optional<std::pair<T, T>> round_trip(const std::string& what, const std::string& text) {
  T value;
  try {
    value = T::parse(text);
  } catch (const tt::Error&) {
    return std::nullopt;
  }
  const std::string printed = value.str();
  T back;
  try {
    back = T::parse(printed);
  } catch (const tt::Error& e) {
    tt::fuzz::property_failed(what + " '" + printed + "' does not parse back: " + e.what());
  }
  require(back.str() == printed, what + " '" + printed + "' changed in a round trip");
  return std::make_pair(value, back);
}

void config(const std::string& text) {
  const auto r = round_trip<tt::autotune::Config>("config", text);
  if (r) require(r->second == r->first, "config '" + r->first.str() + "' changed in a round trip");
}

void problem_key(const std::string& text) {
  const auto r = round_trip<tt::autotune::ProblemKey>("problem key", text);
  if (!r) return;
  const auto distance = tt::autotune::problem_distance(r->first, r->second);
  require(distance.has_value() && *distance == 0.0,
          "problem key '" + r->first.str() + "' is not at distance 0 from itself");
  (void)r->first.size();
}

void compute_capability(const std::string& text) {
  int major = 0, minor = 0;
  try {
    tt::autotune::parse_compute_capability(text, &major, &minor);
  } catch (const tt::Error&) {
    return;
  }
  const std::string printed =
      tt::autotune::make_device_identity("x", major, minor, 1, 0).compute_capability();
  int major2 = -1, minor2 = -1;
  try {
    tt::autotune::parse_compute_capability(printed, &major2, &minor2);
  } catch (const tt::Error& e) {
    tt::fuzz::property_failed("compute capability '" + printed +
                              "' does not parse back: " + e.what());
  }
  require(major2 == major && minor2 == minor,
          "compute capability '" + printed + "' changed in a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      config(text);
      break;
    case 1:
      problem_key(text);
      break;
    default:
      compute_capability(text);
      break;
  }
  return 0;
}
