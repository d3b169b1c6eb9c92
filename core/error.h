// Errors. Every user mistake and every failed CUDA/cuBLAS call becomes a tt::Error
// whose message is a full sentence: what was expected and what was got.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace tt {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Out-of-memory on a device; a distinct type so that callers (the autotuner) can
// skip a variant that does not fit instead of aborting.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

}  // namespace tt

// TT_CHECK(cond, "fmt {}", args...): throws tt::Error with the formatted message.
#define TT_CHECK(cond, ...)                                     \
  do {                                                          \
    if (!(cond)) throw ::tt::Error(::fmt::format(__VA_ARGS__)); \
  } while (0)

#define TT_FAIL(...) throw ::tt::Error(::fmt::format(__VA_ARGS__))
