#include "core/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace tt::files {
namespace {

namespace fs = std::filesystem;

// Linux's own limit on symlinks followed in one lookup.
constexpr int kMaxSymlinks = 40;

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// `path` with its folder resolved by the file system (realpath: symlinked folders and
// ".." as the kernel follows them, not as text), the last component kept as it is;
// `path` unchanged when the folder cannot be resolved (it is missing: the write that
// follows reports that).
std::string resolve_parent(const std::string& path) {
  const fs::path p(path);
  const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  char* real = ::realpath(parent.c_str(), nullptr);
  if (real == nullptr) return path;
  const fs::path resolved = fs::path(real) / p.filename();
  std::free(real);
  return resolved.string();
}

}  // namespace

bool exists(const std::string& path, const std::string& what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  TT_FAIL("cannot inspect {} {}: {}", what, path, std::strerror(errno));
}

std::string output_target(const std::string& path, const std::string& what) {
  TT_CHECK(!path.empty(), "{}: the output path is empty", what);
  std::string target = resolve_parent(path);
  struct stat info {};
  for (int hops = 0;; ++hops) {
    if (::lstat(target.c_str(), &info) != 0) {
      if (errno == ENOENT) return target;  // a new file (its folder is checked on write)
      TT_FAIL("cannot inspect {} {}: {}", what, target, std::strerror(errno));
    }
    if (!S_ISLNK(info.st_mode)) break;
    TT_CHECK(hops < kMaxSymlinks, "cannot write {} {}: {}", what, path, std::strerror(ELOOP));
    std::vector<char> buffer(static_cast<size_t>(info.st_size > 0 ? info.st_size : 255) + 1);
    const ssize_t n = ::readlink(target.c_str(), buffer.data(), buffer.size());
    if (n < 0)
      TT_FAIL("cannot read the symlink {} ({} {}): {}", target, what, path, std::strerror(errno));
    const fs::path link_target(std::string(buffer.data(), static_cast<size_t>(n)));
    // A relative target is relative to the folder the link lives in, which may itself be
    // reached through symlinks: the kernel's resolution, not the text's (issue 21: a merge
    // wrote a stray file through "dir/../db.yaml" where dir was a symlinked folder).
    target = resolve_parent(link_target.is_absolute()
                                ? link_target.string()
                                : (fs::path(target).parent_path() / link_target).string());
  }
  if (!S_ISREG(info.st_mode)) {
    TT_FAIL("refusing to replace {} {}: {} is {}, not a regular file", what, path, target,
            kind_of(info.st_mode));
  }
  // access() says yes to root for any mode, so the mode bits are checked as well: a
  // file nobody may write is one the user marked read-only on purpose.
  if ((info.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) {
    TT_FAIL("refusing to replace {} {}: {} is read-only (make it writable to update it)", what,
            path, target);
  }
  return target;
}

void sync_parent_directory(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace tt::files
