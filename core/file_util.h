// File-system steps shared by everything that reads or replaces a file (tuning
// databases, safetensors): each reports failure as a tt::Error sentence naming the
// path and the reason (permission denied, a symlink loop, a name too long), never as
// a std::filesystem_error, so that only tt::Error leaves the library.
#pragma once

#include <string>

namespace tt::files {

// True when `path` names an existing file system object (after following symlinks);
// false when it or a parent is missing. Any other failure (EACCES, ELOOP,
// ENAMETOOLONG) throws "cannot inspect <what> <path>: <reason>".
bool exists(const std::string& path, const std::string& what);

// Where a write to `path` must land: `path` with every symlink followed (a relative
// link target is relative to the link's folder), so that a symlinked file is updated
// in place and the link stays. If that target exists it must be a regular file that is
// writable (not a directory or device node, not a file without write permission, even
// for root): otherwise a tt::Error naming <what> and the reason.
std::string output_target(const std::string& path, const std::string& what);

// Flushes the directory holding `path` so that a rename into it survives a crash.
// Best effort: a file system that cannot fsync directories is not an error.
void sync_parent_directory(const std::string& path);

}  // namespace tt::files
