// What every store shares: the wait loop and the default deadline.
#include <cstdlib>
#include <string>
#include <thread>

#include "core/error.h"
#include "distributed/store.h"

namespace tt::distributed {

std::chrono::milliseconds default_timeout() {
  const char* text = std::getenv("TT_DIST_TIMEOUT_S");
  if (text == nullptr) return std::chrono::milliseconds(300 * 1000);
  char* end = nullptr;
  const double s = std::strtod(text, &end);
  TT_CHECK(*text != '\0' && *end == '\0' && s > 0 && s < 1e7,
           "TT_DIST_TIMEOUT_S must be a positive number of seconds, but it is '{}'.", text);
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0 + 0.5));
}

void Store::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string missing;
      for (const auto& k : keys) missing += (missing.empty() ? "'" : ", '") + k + "'";
      TT_FAIL(
          "{}: waited {:g} s for {} {}, which no process set; did every rank start (WORLD_SIZE) "
          "and reach the same point? (TT_DIST_TIMEOUT_S sets the wait)",
          describe(), static_cast<double>(timeout.count()) / 1000.0,
          keys.size() == 1 ? "the key" : "the keys", missing);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace tt::distributed
