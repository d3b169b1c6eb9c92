// Shared by the fuzz harnesses: a broken property aborts, which libFuzzer (and the
// replay main) reports as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tt::fuzz {

[[noreturn]] inline void property_failed(const std::string& what) {
  std::fprintf(stderr, "fuzz property failed: %s\n", what.c_str());
  std::abort();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) property_failed(what);
}

}  // namespace tt::fuzz
