// Tuning database files: read, and write under a lock by atomic rename, so that
// concurrent writers (two GPUs, two shells, `tt db merge` beside `tt tune`) never lose
// each other's entries and a reader never sees a half-written file.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

#include "autotune/database.h"
#include "core/error.h"
#include "core/file_util.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;

constexpr char kWhat[] = "the tuning database";
// Far above any real database (the shipped H200 file is 15 KB); it bounds the memory
// a wrong --db (a disk image, /dev/zero's cousins) can make the reader take.
constexpr off_t kMaxDatabaseBytes = off_t{64} << 20;

std::string errno_text() { return std::strerror(errno); }

// An exclusive flock on "<path>.lock", held for the lifetime of the object. The lock
// file is separate from the database because the database is replaced by rename, and
// a lock on a replaced inode would not exclude the next writer. The holder removes
// the lock file when it is done, so none is left beside the database; a writer that
// waited on a lock file that was removed meanwhile sees that the path no longer
// names the inode it locked and tries again, so two writers never both hold a lock.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : lock_path_(path + ".lock") {
    for (;;) {
      // O_NOFOLLOW: a symlink planted at the lock's name must not make us create or
      // truncate a file elsewhere (as root: anywhere).
      fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
      TT_CHECK(fd_ >= 0 || errno != ELOOP,
               "refusing to lock {}: the lock file {} is a symbolic link (remove it)", path,
               lock_path_);
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
      struct stat held {
      }, named{};
      if (::fstat(fd_, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 &&
          held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
        return;
      }
      ::close(fd_);  // the file we locked was removed by its previous holder
    }
  }
  ~FileLock() {
    ::unlink(lock_path_.c_str());  // while still held: see above
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

std::string temp_prefix(const fs::path& target) {
  return "." + target.filename().string() + ".tmp.";
}

// Temporary files of writers that died between creating and renaming them. Every
// writer holds the lock while its temporary file exists, so under the lock any such
// file is a leftover and safe to remove.
void remove_leftover_temp_files(const fs::path& dir, const fs::path& target) {
  const std::string prefix = temp_prefix(target);
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;
  while (const dirent* item = ::readdir(listing)) {
    const std::string name = item->d_name;
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0) {
      ::unlink((dir / name).c_str());
    }
  }
  ::closedir(listing);
}

// Writes `text` next to `path` and renames it over `path`: readers see the old file
// or the new one, never a mix. Called with the lock held, on a resolved target.
void replace_file(const std::string& path, const std::string& text) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  remove_leftover_temp_files(dir, target);
  std::string temp = (dir / (temp_prefix(target) + "XXXXXX")).string();
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
  files::sync_parent_directory(path);
}

std::string read_database_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  TT_CHECK(fd >= 0, "cannot read the tuning database {}: {}", path, errno_text());
  struct stat info {};
  std::string text;
  try {
    TT_CHECK(::fstat(fd, &info) == 0, "cannot read the tuning database {}: {}", path, errno_text());
    TT_CHECK(S_ISREG(info.st_mode), "cannot read the tuning database {}: it is not a regular file",
             path);
    TT_CHECK(info.st_size <= kMaxDatabaseBytes,
             "cannot read the tuning database {}: it is {} bytes, more than the {} MiB a tuning "
             "database may have",
             path, info.st_size, kMaxDatabaseBytes >> 20);
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      TT_CHECK(n >= 0, "cannot read the tuning database {}: {}", path, errno_text());
      if (n == 0) break;
      text.append(buffer, static_cast<size_t>(n));
      TT_CHECK(static_cast<off_t>(text.size()) <= kMaxDatabaseBytes,
               "cannot read the tuning database {}: it grew past {} MiB while being read", path,
               kMaxDatabaseBytes >> 20);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

// Runs fn, turning std::bad_alloc into a tt::OutOfMemoryError that names the file.
template <typename Fn>
auto out_of_memory_as_error(const std::string& path, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(
        fmt::format("out of memory while reading or writing the tuning database {}", path));
  }
}

}  // namespace

Database load_database(const std::string& path) {
  return out_of_memory_as_error(path,
                                [&] { return parse_database(read_database_text(path), path); });
}

void update_database(const std::string& path, const std::function<void(Database&)>& change) {
  out_of_memory_as_error(path, [&] {
    // A symlinked database is updated where it lives, its lock beside it.
    const std::string target = files::output_target(path, kWhat);
    create_parent_directories(target);
    FileLock lock(target);
    Database db;
    // A malformed file throws here, before anything is written: it is never replaced.
    if (files::exists(target, kWhat)) db = load_database(target);
    change(db);
    replace_file(target, to_yaml(db));
  });
}

void save_database(const std::string& path, const Database& updates) {
  update_database(path, [&](Database& on_disk) { on_disk.merge_from(updates); });
}

Database merge_database_files(const std::vector<std::string>& inputs, const std::string& out) {
  Database merged;
  update_database(out, [&](Database& on_disk) {
    // Read under the output's lock, so that an input that is the output itself (or
    // was just written by a writer holding that lock) is seen as it is now.
    for (const std::string& input : inputs) on_disk.merge_from(load_database(input));
    merged = on_disk;
  });
  return merged;
}

}  // namespace tt::autotune
