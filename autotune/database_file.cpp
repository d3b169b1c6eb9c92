// Tuning database files: read, and write under a lock by atomic rename, so that
// concurrent tuners (two GPUs, two shells) never lose each other's entries and a
// reader never sees a half-written file.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autotune/database.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;

std::string errno_text() { return std::strerror(errno); }

// An exclusive flock on "<path>.lock", held for the lifetime of the object. The lock
// file is separate from the database because the database is replaced by rename, and
// a lock on a replaced inode would not exclude the next writer.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : lock_path_(path + ".lock") {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    TT_CHECK(fd_ >= 0, "cannot open the lock file {}: {}", lock_path_, errno_text());
    int rc;
    do {
      rc = ::flock(fd_, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const std::string reason = errno_text();
      ::close(fd_);
      TT_FAIL("cannot lock {}: {}", lock_path_, reason);
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

void create_parent_directories(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  TT_CHECK(!ec, "cannot create the directory {} for the tuning database: {}", parent.string(),
           ec.message());
}

void write_all(int fd, const std::string& text, const std::string& path) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    TT_CHECK(n > 0, "cannot write {}: {}", path, errno_text());
    written += static_cast<size_t>(n);
  }
}

// Writes `text` next to `path` and renames it over `path`: readers see the old file
// or the new one, never a mix. Called with the lock held.
void replace_file(const std::string& path, const std::string& text) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  TT_CHECK(fd >= 0, "cannot create a temporary file in {}: {}", dir.string(), errno_text());
  try {
    // Keep the permissions of the file being replaced; a new database is 0644 as
    // it holds nothing secret and is meant to be shared.
    struct stat existing {};
    const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
    TT_CHECK(::fchmod(fd, mode) == 0, "cannot set permissions on {}: {}", temp, errno_text());
    write_all(fd, text, temp);
    TT_CHECK(::fsync(fd) == 0, "cannot flush {}: {}", temp, errno_text());
    const int rc = ::close(fd);
    fd = -1;  // closed even when close() reports an error
    TT_CHECK(rc == 0, "cannot close {}: {}", temp, errno_text());
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = errno_text();
    ::unlink(temp.c_str());
    TT_FAIL("cannot replace {}: {}", path, reason);
  }
}

}  // namespace

Database load_database(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  TT_CHECK(file.good(), "cannot read the tuning database {}: {}", path, errno_text());
  std::ostringstream text;
  text << file.rdbuf();
  TT_CHECK(!file.bad(), "cannot read the tuning database {}: {}", path, errno_text());
  return parse_database(text.str(), path);
}

void update_database(const std::string& path, const std::function<void(Database&)>& change) {
  create_parent_directories(path);
  FileLock lock(path);
  Database db;
  // A malformed file throws here, before anything is written: it is never replaced.
  if (fs::exists(path)) db = load_database(path);
  change(db);
  replace_file(path, to_yaml(db));
}

void save_database(const std::string& path, const Database& updates) {
  update_database(path, [&](Database& on_disk) { on_disk.merge_from(updates); });
}

void write_database(const std::string& path, const Database& db) {
  create_parent_directories(path);
  FileLock lock(path);
  replace_file(path, to_yaml(db));
}

}  // namespace tt::autotune
