#include "autotune/device_identity.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "core/error.h"
#include "core/text.h"

namespace tt::autotune {

std::string DeviceIdentity::compute_capability() const {
  return fmt::format("sm_{}{}", cc_major, cc_minor);
}

std::string DeviceIdentity::key() const {
  return fmt::format("{}|{}|{}sm", name, compute_capability(), sm_count);
}

DeviceIdentity make_device_identity(std::string name, int cc_major, int cc_minor, int sm_count,
                                    uint64_t memory_bytes) {
  TT_CHECK(!name.empty() && name.find('|') == std::string::npos,
           "device name '{}' must be non-empty and contain no '|'", name);
  TT_CHECK(cc_major > 0 && cc_minor >= 0 && cc_minor <= 9,
           "compute capability {}.{} is not valid; expected a major > 0 and a minor digit 0-9",
           cc_major, cc_minor);
  TT_CHECK(sm_count > 0, "device '{}' must have a positive SM count, got {}", name, sm_count);
  DeviceIdentity identity;
  identity.name = std::move(name);
  identity.cc_major = cc_major;
  identity.cc_minor = cc_minor;
  identity.sm_count = sm_count;
  identity.memory_bytes = memory_bytes;
  return identity;
}

void parse_compute_capability(std::string_view text, int* major, int* minor) {
  const bool well_formed = text.size() >= 5 && text.substr(0, 3) == "sm_" &&
                           text.find_first_not_of("0123456789", 3) == std::string_view::npos;
  TT_CHECK(well_formed, "compute capability '{}' is not of the form sm_XY (e.g. sm_90)",
           excerpt(text));
  const std::string_view digits = text.substr(3);
  int value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  // Out of int's range or a major version of 0 ("sm_05") names no device.
  TT_CHECK(ec == std::errc() && end == digits.data() + digits.size() && value >= 10,
           "compute capability '{}' is out of range; expected sm_XY with a major version >= 1",
           excerpt(text));
  *major = value / 10;
  *minor = value % 10;
}

#if !TT_CUDA
const DeviceIdentity& current_device_identity(int device) {
  TT_FAIL("cannot identify CUDA device {}: tensortune was built without CUDA", device);
}
#endif

}  // namespace tt::autotune
