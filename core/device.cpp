#include "core/device.h"

#include <cctype>

#include "core/error.h"

namespace tt {

std::string Device::str() const { return is_cpu() ? "cpu" : fmt::format("cuda:{}", index); }

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() < 9) {
    int index = 0;
    for (size_t i = 5; i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
        index = -1;
        break;
      }
      index = index * 10 + (text[i] - '0');
    }
    if (index >= 0) return cuda(index);
  }
  TT_FAIL("unknown device '{}': expected 'cpu', 'cuda' or 'cuda:N'", text);
}

}  // namespace tt
