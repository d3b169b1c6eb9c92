#include "autotune/config.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "autotune/name_values.h"
#include "core/error.h"
#include "core/text.h"

namespace tt::autotune {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

Config::Config(std::initializer_list<Value> values, std::string impl) {
  set_impl(std::move(impl));
  for (const auto& [name, value] : values) set(name, value);
}

Config Config::parse(std::string_view full_text) {
  // Messages quote the text; a long one only in part.
  const std::string text = excerpt(full_text);
  Config config;
  bool impl_seen = false;
  for_each_name_value(full_text, "config", [&](std::string_view name, std::string_view value) {
    if (name == "impl") {
      TT_CHECK(!impl_seen, "config '{}': impl is given twice", text);
      TT_CHECK(!value.empty(), "config '{}': impl must not be empty", text);
      impl_seen = true;
      config.set_impl(std::string(value));
      return;
    }
    TT_CHECK(is_identifier(name),
             "config '{}': parameter name '{}' is not an identifier (letters, digits, _)", text,
             excerpt(name));
    TT_CHECK(!config.has(name), "config '{}': parameter '{}' is given twice", text, name);
    int64_t number = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    TT_CHECK(ec == std::errc() && end == value.data() + value.size() && !value.empty(),
             "config '{}': value of '{}' must be an integer but got '{}'", text, name,
             excerpt(value));
    config.set(std::string(name), number);
  });
  return config;
}

std::string Config::str() const {
  std::string out;
  if (!impl_.empty()) out = "impl=" + impl_;
  for (const auto& [name, value] : values_) {
    if (!out.empty()) out += ',';
    out += name;
    out += '=';
    out += std::to_string(value);
  }
  return out;
}

Config& Config::set_impl(std::string impl) {
  TT_CHECK(impl.find_first_of(",=") == std::string::npos,
           "config impl '{}' must not contain ',' or '='", excerpt(impl));
  impl_ = std::move(impl);
  return *this;
}

bool Config::has(std::string_view name) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const Value& v) { return v.first == name; });
}

int64_t Config::get(std::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  TT_FAIL("config {} has no parameter '{}'", str().empty() ? "(empty)" : str(), name);
}

int64_t Config::get_or(std::string_view name, int64_t fallback) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  return fallback;
}

Config& Config::set(const std::string& name, int64_t value) {
  TT_CHECK(name != "impl" && is_identifier(name),
           "config parameter name '{}' must be an identifier other than 'impl'", excerpt(name));
  for (auto& [key, old] : values_) {
    if (key == name) {
      old = value;
      return *this;
    }
  }
  values_.emplace_back(name, value);
  return *this;
}

bool Config::operator==(const Config& other) const {
  if (impl_ != other.impl_ || values_.size() != other.values_.size()) return false;
  return std::all_of(values_.begin(), values_.end(), [&](const Value& v) {
    return other.has(v.first) && other.get(v.first) == v.second;
  });
}

}  // namespace tt::autotune
