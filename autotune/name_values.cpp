#include "autotune/name_values.h"

#include <cctype>

#include "core/error.h"
#include "core/text.h"

namespace tt::autotune {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

void for_each_name_value(std::string_view text, std::string_view what,
                         const std::function<void(std::string_view, std::string_view)>& item) {
  std::string_view rest = text;
  while (!trim(rest).empty()) {
    const size_t comma = rest.find(',');
    const std::string_view token = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t eq = token.find('=');
    TT_CHECK(eq != std::string_view::npos, "{} '{}': expected name=value but got '{}'", what,
             excerpt(text), excerpt(token));
    item(trim(token.substr(0, eq)), trim(token.substr(eq + 1)));
  }
}

}  // namespace tt::autotune
