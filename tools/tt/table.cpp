#include "tools/tt/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace tt::cli {

std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right_aligned) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool right = i < right_aligned.size() && right_aligned[i];
      line += i == 0 ? "" : "  ";
      line +=
          right ? fmt::format("{:>{}}", row[i], width[i]) : fmt::format("{:<{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace tt::cli
