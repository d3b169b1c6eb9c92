// Short, printable excerpts of untrusted input for error messages: a message quotes
// enough of a bad value to find it, never a whole file or a megabyte-long line, and
// never raw control bytes that would garble a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tt {

// `text` with control and non-ASCII bytes written as \xNN, cut to about `max_chars`
// characters with "... (N bytes)" appended when it was longer.
std::string excerpt(std::string_view text, size_t max_chars = 60);

}  // namespace tt

namespace tt {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points
// above U+10FFFF).
bool is_valid_utf8(std::string_view text);

}  // namespace tt
