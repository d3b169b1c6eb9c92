#include "autotune/problem_key.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "autotune/name_values.h"
#include "core/error.h"
#include "core/text.h"

namespace tt::autotune {
namespace {

std::optional<int64_t> as_integer(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void check_field(const std::vector<ProblemKey::Field>& fields, const std::string& name,
                 const std::string& value) {
  TT_CHECK(!name.empty() && name.find_first_of(",= ") == std::string::npos,
           "problem key field name '{}' must be non-empty without ',', '=' or spaces",
           excerpt(name));
  TT_CHECK(!value.empty() && value.find_first_of(",=") == std::string::npos,
           "problem key field '{}' has value '{}'; expected a non-empty value without ',' or '='",
           excerpt(name), excerpt(value));
  TT_CHECK(std::none_of(fields.begin(), fields.end(),
                        [&](const ProblemKey::Field& f) { return f.name == name; }),
           "problem key field '{}' is given twice", excerpt(name));
}

}  // namespace

ProblemKey& ProblemKey::add(const std::string& name, int64_t value) {
  const std::string text = std::to_string(value);
  check_field(fields_, name, text);
  fields_.push_back({name, text, value});
  return *this;
}

ProblemKey& ProblemKey::add(const std::string& name, const std::string& value) {
  check_field(fields_, name, value);
  fields_.push_back({name, value, as_integer(value)});
  return *this;
}

ProblemKey& ProblemKey::add_align_floats(int floats) {
  return add("align", std::to_string(4 * floats) + "B");
}

ProblemKey& ProblemKey::add_precision(Precision p) { return add("precision", precision_name(p)); }

std::string ProblemKey::str_aligned(int floats) {
  return add_align_floats(floats).add_precision().str();
}

ProblemKey ProblemKey::parse(std::string_view text) {
  ProblemKey key;
  for_each_name_value(text, "problem key", [&](std::string_view name, std::string_view value) {
    key.add(std::string(name), std::string(value));
  });
  return key;
}

std::string ProblemKey::str() const {
  std::string out;
  for (const auto& f : fields_) {
    if (!out.empty()) out += ',';
    out += f.name + '=' + f.text;
  }
  return out;
}

const ProblemKey::Field* ProblemKey::find(std::string_view name) const {
  for (const auto& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

double ProblemKey::size() const {
  double product = 1.0;
  for (const auto& f : fields_) {
    if (f.number) product *= static_cast<double>(*f.number);
  }
  return product;
}

std::optional<double> problem_distance(const ProblemKey& a, const ProblemKey& b) {
  if (a.fields().size() != b.fields().size()) return std::nullopt;
  double distance = 0.0;
  for (const auto& fa : a.fields()) {
    const ProblemKey::Field* fb = b.find(fa.name);
    if (fb == nullptr || fa.number.has_value() != fb->number.has_value()) return std::nullopt;
    if (!fa.number) {
      if (fa.text != fb->text) return std::nullopt;
      continue;
    }
    const int64_t x = *fa.number;
    const int64_t y = *fb->number;
    if (x <= 0 || y <= 0) {
      if (x != y) return std::nullopt;
      continue;
    }
    distance += std::fabs(std::log2(static_cast<double>(x) / static_cast<double>(y)));
  }
  return distance;
}

}  // namespace tt::autotune
