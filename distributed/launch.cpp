// The launcher's process handling: fork/exec, one pipe per output stream, a poll
// loop that relays whole lines with their prefix, and the stop-the-others rule.
#include "distributed/launch.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/error.h"

namespace tt::distributed {
namespace {

volatile std::sig_atomic_t g_signal = 0;
extern "C" void remember_signal(int sig) { g_signal = sig; }

struct Stream {
  int fd = -1;
  int to = 1;  // 1 stdout, 2 stderr
  std::string partial;
};

struct Child {
  pid_t pid = -1;
  bool running = false;
  int status = 0;
  Stream out, err;
};

void write_fd(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own output is gone: keep relaying nothing
    done += static_cast<size_t>(n);
  }
}

// Relays what is readable; false at end of stream.
bool relay(Stream& s, const std::string& prefix) {
  char chunk[8192];
  const ssize_t n = ::read(s.fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    if (!s.partial.empty()) write_fd(s.to, prefix + s.partial + "\n");
    s.partial.clear();
    ::close(s.fd);
    s.fd = -1;
    return false;
  }
  s.partial.append(chunk, static_cast<size_t>(n));
  std::string lines;
  size_t start = 0;
  for (size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1)
    lines += prefix + s.partial.substr(start, nl + 1 - start);
  s.partial.erase(0, start);
  if (!lines.empty()) write_fd(s.to, lines);
  return true;
}

std::string how_ended(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       ::strsignal(WTERMSIG(status)));
  return "ended";
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

bool failed(int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); }

void signal_all(std::vector<Child>& children, int sig) {
  for (const Child& c : children)
    if (c.running) ::kill(-c.pid, sig);  // the child's process group: its own children too
}

}  // namespace

int pick_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  TT_CHECK(fd >= 0, "Could not open a socket to find a free port: {}.", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  TT_CHECK(ok, "Could not find a free port: {}.", std::strerror(errno));
  return ntohs(addr.sin_port);
}

std::vector<std::pair<std::string, std::string>> rank_env(int rank, int world,
                                                          const std::string& master_addr,
                                                          int master_port) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"RANK", std::to_string(rank)},        {"LOCAL_RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(world)}, {"LOCAL_WORLD_SIZE", std::to_string(world)},
      {"MASTER_ADDR", master_addr},          {"MASTER_PORT", std::to_string(master_port)},
  };
  // NVLink multicast can put a shared host's GPUs out of service; off unless asked.
  if (std::getenv("NCCL_NVLS_ENABLE") == nullptr) env.emplace_back("NCCL_NVLS_ENABLE", "0");
  return env;
}

LaunchResult run_children(const std::vector<ChildSpec>& specs, const std::string& who) {
  TT_CHECK(!specs.empty(), "{}: there is no process to start.", who);
  struct sigaction sa {};
  sa.sa_handler = remember_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{}, old_hup{};
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  ::sigaction(SIGHUP, &sa, &old_hup);
  g_signal = 0;
  std::cout.flush();
  std::cerr.flush();

  std::vector<Child> children(specs.size());
  LaunchResult result;
  for (size_t i = 0; i < specs.size(); ++i) {
    int out[2], err[2];
    TT_CHECK(::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0,
             "{}: could not create pipes for {}: {}.", who, specs[i].name, std::strerror(errno));
    const pid_t pid = ::fork();
    TT_CHECK(pid >= 0, "{}: could not start {}: {}.", who, specs[i].name, std::strerror(errno));
    if (pid == 0) {
      ::setpgid(0, 0);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ::signal(SIGHUP, SIG_DFL);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      for (const auto& [k, v] : specs[i].env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> argv;
      for (const std::string& a : specs[i].argv) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      const std::string why =
          fmt::format("{}: cannot run {}: {}\n", who, specs[i].argv[0], std::strerror(errno));
      write_fd(2, why);
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: the child may not have run yet when we signal it
    ::close(out[1]);
    ::close(err[1]);
    children[i].pid = pid;
    children[i].running = true;
    children[i].out = {out[0], 1, {}};
    children[i].err = {err[0], 2, {}};
  }

  using Clock = std::chrono::steady_clock;
  Clock::time_point stop_sent{};
  bool stopping = false, killed = false;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, Stream*>> owners;
    for (size_t i = 0; i < children.size(); ++i)
      for (Stream* s : {&children[i].out, &children[i].err})
        if (s->fd >= 0) {
          fds.push_back({s->fd, POLLIN, 0});
          owners.emplace_back(i, s);
        }
    const bool any_running = [&] {
      for (const Child& c : children)
        if (c.running) return true;
      return false;
    }();
    if (fds.empty() && !any_running) break;
    if (!fds.empty()) {
      if (::poll(fds.data(), fds.size(), 50) > 0)
        for (size_t k = 0; k < fds.size(); ++k)
          if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
            relay(*owners[k].second, specs[owners[k].first].prefix);
    } else {
      ::usleep(20000);
    }
    if (g_signal != 0) {
      // Forward what we were sent; the children decide how to end.
      signal_all(children, g_signal);
      if (!stopping) {
        stopping = true;
        stop_sent = Clock::now();
      }
      if (result.exit_code == 0) result.exit_code = 128 + g_signal;
      g_signal = 0;
    }
    for (size_t i = 0; i < children.size(); ++i) {
      Child& c = children[i];
      if (!c.running) continue;
      int status = 0;
      if (::waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
      c.running = false;
      c.status = status;
      if (failed(status) && result.failed_child < 0 && !stopping) {
        result.failed_child = static_cast<int>(i);
        result.exit_code = exit_code_of(status);
        result.message =
            fmt::format("{} (pid {}) {}; stopping the other {}.", specs[i].name, c.pid,
                        how_ended(status), children.size() == 2 ? "process" : "processes");
        if (children.size() == 1)
          result.message = fmt::format("{} (pid {}) {}.", specs[i].name, c.pid, how_ended(status));
        signal_all(children, SIGTERM);
        stopping = true;
        stop_sent = Clock::now();
      }
    }
    if (stopping && !killed && Clock::now() - stop_sent > std::chrono::seconds(5)) {
      signal_all(children, SIGKILL);  // a child that ignores SIGTERM (stuck in a driver call)
      killed = true;
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGHUP, &old_hup, nullptr);
  if (!result.message.empty()) std::cerr << who << ": " << result.message << "\n";
  return result;
}

}  // namespace tt::distributed
