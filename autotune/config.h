// Config: one point of a tunable kernel's parameter space (see autotune/space.h).
//
// Named integer parameters (threads, bm, bn, vec, ...) in declaration order, plus an
// optional free-form string `impl` that picks an implementation family (own | cublas |
// cublaslt, ...). It prints as "impl=own,bm=128,bn=64" and Config::parse() reads that
// form back; the tuning database and `tt` print and parse configs this way.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tt::autotune {

class Config {
 public:
  using Value = std::pair<std::string, int64_t>;

  Config() = default;
  Config(std::initializer_list<Value> values, std::string impl = "");

  // Reads "impl=own,bm=128,bn=64" (impl is optional and may come anywhere; whitespace
  // around tokens is ignored; "" is the empty config). Throws tt::Error naming the bad token.
  static Config parse(std::string_view text);
  // "impl=own,bm=128,bn=64": impl first (when set), then the parameters in order.
  std::string str() const;

  const std::string& impl() const { return impl_; }
  Config& set_impl(std::string impl);

  bool has(std::string_view name) const;
  // Throws tt::Error when the parameter is missing ("config impl=own,bm=128 has no
  // parameter 'bn'").
  int64_t get(std::string_view name) const;
  int64_t get_or(std::string_view name, int64_t fallback) const;
  // Replaces the value of an existing parameter, otherwise appends it.
  Config& set(const std::string& name, int64_t value);

  const std::vector<Value>& values() const { return values_; }
  bool empty() const { return impl_.empty() && values_.empty(); }

  // Same impl and the same name -> value pairs; the order of parameters is ignored.
  bool operator==(const Config& other) const;
  bool operator!=(const Config& other) const { return !(*this == other); }

 private:
  std::string impl_;
  std::vector<Value> values_;
};

}  // namespace tt::autotune
