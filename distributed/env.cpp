#include "distributed/env.h"

#include <cstdlib>
#include <string>

#include "core/error.h"

namespace tt::distributed {
namespace {

std::string required(const char* name) {
  const char* v = std::getenv(name);
  TT_CHECK(v != nullptr && *v != '\0',
           "tt::distributed::init() needs the environment variable {}, but it is {}; start the "
           "program with `tt launch -n N` or torchrun, which set RANK, WORLD_SIZE, LOCAL_RANK, "
           "MASTER_ADDR and MASTER_PORT.",
           name, v == nullptr ? "not set" : "empty");
  return v;
}

// An integer in [lo, hi]; `range` says the bounds in words for the message.
int integer(const char* name, int64_t lo, int64_t hi, const std::string& range) {
  const std::string text = required(name);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  TT_CHECK(*end == '\0' && errno == 0 && v >= lo && v <= hi,
           "The environment variable {} must be {}, but it is '{}'.", name, range, text);
  return static_cast<int>(v);
}

}  // namespace

LaunchEnv read_launch_env() {
  LaunchEnv env;
  env.world_size = integer("WORLD_SIZE", 1, 1 << 20, "a positive integer");
  env.rank = integer(
      "RANK", 0, env.world_size - 1,
      fmt::format("an integer in 0..{} (WORLD_SIZE is {})", env.world_size - 1, env.world_size));
  env.local_rank = integer(
      "LOCAL_RANK", 0, env.world_size - 1,
      fmt::format("an integer in 0..{} (WORLD_SIZE is {})", env.world_size - 1, env.world_size));
  env.master_addr = required("MASTER_ADDR");
  env.master_port = integer("MASTER_PORT", 1, 65535, "a port number in 1..65535");
  return env;
}

}  // namespace tt::distributed
