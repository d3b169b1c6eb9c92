// Where the run-time lookup finds tuning databases (the priority list in lookup.h).
#include <dlfcn.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "autotune/lookup.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;

std::mutex& explicit_path_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string& explicit_path() {
  static std::string path;
  return path;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string home_directory() {
  std::string home = env("HOME");
  if (!home.empty()) return home;
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "";
}

// <prefix>/share/tensortune/db for a file installed as <prefix>/<dir>/<file>.
fs::path shipped_beside(const fs::path& file) {
  return file.parent_path().parent_path() / "share" / "tensortune" / "db";
}

// Directories that may hold shipped databases, all found relative to where the code
// runs from, so that a moved install still finds its own: beside the shared library
// this code is in (<prefix>/lib/libtt_autotune.so), beside the running program
// (<prefix>/bin/tt; the build tree mirrors it as build/share/tensortune/db), and last
// the prefix configured at build time (a program built elsewhere against a static
// install that was not moved).
std::vector<fs::path> shipped_directories() {
  std::vector<fs::path> dirs;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&shipped_beside), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const fs::path object = fs::canonical(info.dli_fname, ec);
    if (!ec && object.extension() != "" && object.string().find(".so") != std::string::npos)
      dirs.push_back(shipped_beside(object));
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(shipped_beside(exe));
#ifdef TT_INSTALL_PREFIX
  dirs.emplace_back(fs::path(TT_INSTALL_PREFIX) / "share" / "tensortune" / "db");
#endif
  return dirs;
}

std::vector<std::string> shipped_files() {
  std::vector<std::string> files;
  std::set<fs::path> seen;  // the same directory may be reached twice
  for (const fs::path& dir : shipped_directories()) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(dir, ec);
    if (ec || !fs::is_directory(canonical, ec) || !seen.insert(canonical).second) continue;
    std::vector<std::string> here;
    // The error_code forms throughout: an unreadable folder is skipped, never thrown.
    for (fs::directory_iterator it(canonical, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".yaml") {
        here.push_back(it->path().string());
      }
    }
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

}  // namespace

std::string user_cache_database_path() {
  std::string base = env("XDG_CACHE_HOME");
  // The XDG spec says relative values are invalid and must be ignored.
  if (base.empty() || base.front() != '/') {
    const std::string home = home_directory();
    base = home.empty() ? std::string(".cache") : home + "/.cache";
  }
  return (fs::path(base) / "tensortune" / "tuning.yaml").string();
}

std::vector<DatabaseSource> database_sources() {
  std::vector<DatabaseSource> sources;
  std::string chosen;
  {
    std::lock_guard<std::mutex> lock(explicit_path_mutex());
    chosen = explicit_path();
  }
  if (!chosen.empty()) {
    sources.push_back({chosen, "--db"});
  } else if (const std::string from_env = env("TT_TUNING_DB"); !from_env.empty()) {
    sources.push_back({from_env, "TT_TUNING_DB"});
  }
  sources.push_back({user_cache_database_path(), "user cache"});
  for (const std::string& file : shipped_files()) sources.push_back({file, "shipped"});
  return sources;
}

void set_database_path(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(explicit_path_mutex());
    explicit_path() = path;
  }
  reload_databases();
}

}  // namespace tt::autotune
