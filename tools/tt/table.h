// Plain-text tables for the `tt` commands: columns sized to their widest cell, the
// chosen ones right-aligned (numbers), two spaces between columns, no trailing blanks.
#pragma once

#include <string>
#include <vector>

namespace tt::cli {

// rows[0] is the header. `right_aligned` has one flag per column (missing: left).
std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right_aligned);

}  // namespace tt::cli
