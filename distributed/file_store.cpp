// FileStore: records appended to one file under flock(2), read back whole. The file
// only grows during a job, which is fine for the few keys a rendezvous writes.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "core/error.h"
#include "distributed/store.h"

namespace tt::distributed {
namespace {

// An open, exclusively locked file for the scope.
class LockedFile {
 public:
  explicit LockedFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    TT_CHECK(fd_ >= 0, "FileStore could not open {}: {}.", path, std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      TT_CHECK(errno == EINTR, "FileStore could not lock {}: {}.", path, std::strerror(errno));
    }
  }
  ~LockedFile() { ::close(fd_); }  // closing drops the lock
  int fd() const { return fd_; }

 private:
  int fd_;
};

std::string record(const std::string& key, const std::string& value) {
  return fmt::format("{} {}\n{}{}\n", key.size(), value.size(), key, value);
}

// Later records override earlier ones, as a set does.
std::map<std::string, std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char chunk[65536];
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    TT_CHECK(n >= 0, "FileStore could not read {}: {}.", path, std::strerror(errno));
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    size_t key_len = 0, value_len = 0;
    TT_CHECK(nl != std::string::npos &&
                 std::sscanf(text.c_str() + at, "%zu %zu", &key_len, &value_len) == 2 &&
                 nl + 1 + key_len + value_len + 1 <= text.size(),
             "FileStore {} is not a store file (a broken record at byte {}); give each job a "
             "fresh path.",
             path, at);
    out[text.substr(nl + 1, key_len)] = text.substr(nl + 1 + key_len, value_len);
    at = nl + 1 + key_len + value_len + 1;
  }
  return out;
}

void append(int fd, const std::string& path, const std::string& data) {
  ::lseek(fd, 0, SEEK_END);
  TT_CHECK(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()),
           "FileStore could not write {}: {}.", path, std::strerror(errno));
}

}  // namespace

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout)
    : Store(timeout), path_(std::move(path)) {
  TT_CHECK(!path_.empty(), "FileStore needs a file path, but got an empty one.");
  LockedFile f(path_);  // creates it, and says now when it cannot be opened
}

void FileStore::set(const std::string& key, const std::string& value) {
  LockedFile f(path_);
  append(f.fd(), path_, record(key, value));
}

std::string FileStore::get(const std::string& key) {
  wait({key});
  LockedFile f(path_);
  return read_all(f.fd(), path_).at(key);
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  LockedFile f(path_);
  const auto all = read_all(f.fd(), path_);
  int64_t current = 0;
  const auto it = all.find(key);
  if (it != all.end()) {
    try {
      current = std::stoll(it->second);
    } catch (const std::exception&) {
      TT_FAIL("{}: 'add {}' needs an integer counter, but the key holds another value.", describe(),
              key);
    }
  }
  current += delta;
  append(f.fd(), path_, record(key, std::to_string(current)));
  return current;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  LockedFile f(path_);
  const auto all = read_all(f.fd(), path_);
  for (const auto& k : keys)
    if (!all.count(k)) return false;
  return true;
}

}  // namespace tt::distributed
