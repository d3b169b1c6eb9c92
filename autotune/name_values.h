// The "name=value,name=value" text that configs and problem keys are written in: one
// reader for both, so they trim, split and reject malformed items alike.
#pragma once

#include <functional>
#include <string_view>

namespace tt::autotune {

// Calls item(name, value) for each comma-separated item of `text` in order, both
// trimmed of white space. An item without '=' (an empty one too) throws tt::Error
// "<what> '<text>': expected name=value but got '<item>'" when it is reached.
void for_each_name_value(std::string_view text, std::string_view what,
                         const std::function<void(std::string_view, std::string_view)>& item);

}  // namespace tt::autotune
