// TCPStore: one server thread in rank 0 holding a std::map, and a blocking client
// socket per process. The wire format is small and private to this file:
//   request:  op (1 byte), key length (u32), key, value length (u32), value
//   response: status (1 byte, 0 ok / 1 absent), length (u32), data
// Waits poll `check` from the client, so the server never blocks on one client.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "core/error.h"
#include "distributed/store.h"

namespace tt::distributed {
namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::string seconds(std::chrono::milliseconds t) {
  return fmt::format("{:g} s", static_cast<double>(t.count()) / 1000.0);
}

bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// 0: read all; -1: error or closed (errno set; 0 for an orderly close).
int recv_all(int fd, char* out, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd, out + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = 0;
    if (n <= 0) return -1;
    got += static_cast<size_t>(n);
  }
  return 0;
}

std::vector<std::string> split_keys(const std::string& joined) {
  std::vector<std::string> keys;
  size_t start = 0;
  for (size_t i = 0; i <= joined.size(); ++i) {
    if (i == joined.size() || joined[i] == '\0') {
      keys.push_back(joined.substr(start, i - start));
      start = i + 1;
    }
  }
  return keys;
}

}  // namespace

class TCPStore::Server {
 public:
  Server(const std::string& host, int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    TT_CHECK(listen_fd_ >= 0, "TCPStore could not create a socket to serve on {}:{}: {}.", host,
             port, std::strerror(errno));
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    // Rank 0 listens on every interface: MASTER_ADDR is how the others reach it,
    // which may be another address of this host than the one it was given.
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 128) != 0) {
      const std::string why = std::strerror(errno);
      ::close(listen_fd_);
      TT_FAIL(
          "TCPStore (rank 0) could not listen on port {}: {}; pick another MASTER_PORT "
          "(tt launch --master-port) or stop the process that holds it.",
          port, why);
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~Server() {
    stop_ = true;
    thread_.join();
    for (auto& c : clients_) ::close(c.fd);
    ::close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  struct Client {
    int fd;
    std::string buffer;
  };

  void loop() {
    while (!stop_) {
      std::vector<pollfd> fds;
      fds.push_back({listen_fd_, POLLIN, 0});
      for (const auto& c : clients_) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd >= 0) {
          const int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_.push_back({fd, {}});
        }
      }
      std::vector<int> closed;
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Client& c = clients_[i - 1];
        char chunk[4096];
        const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
          closed.push_back(c.fd);
          continue;
        }
        c.buffer.append(chunk, static_cast<size_t>(n));
        if (!serve(c)) closed.push_back(c.fd);
      }
      for (int fd : closed) {
        ::close(fd);
        for (size_t i = 0; i < clients_.size(); ++i)
          if (clients_[i].fd == fd) clients_.erase(clients_.begin() + static_cast<long>(i));
      }
    }
  }

  // Answers every complete request in the client's buffer; false drops the client.
  bool serve(Client& c) {
    for (;;) {
      std::string& b = c.buffer;
      if (b.size() < 5) return true;
      const uint32_t key_len = get_u32(b.data() + 1);
      if (b.size() < 9 + static_cast<size_t>(key_len)) return true;
      const uint32_t value_len = get_u32(b.data() + 5 + key_len);
      const size_t total = 9 + static_cast<size_t>(key_len) + value_len;
      if (b.size() < total) return true;
      const char op = b[0];
      const std::string key = b.substr(5, key_len);
      const std::string value = b.substr(9 + key_len, value_len);
      b.erase(0, total);
      char status = 0;
      std::string data;
      if (op == 'S') {
        data_[key] = value;
      } else if (op == 'G') {
        const auto it = data_.find(key);
        if (it == data_.end())
          status = 1;
        else
          data = it->second;
      } else if (op == 'A') {
        int64_t current = 0;
        const auto it = data_.find(key);
        try {
          if (it != data_.end()) current = std::stoll(it->second);
          current += std::stoll(value);
          data_[key] = data = std::to_string(current);
        } catch (const std::exception&) {
          status = 2;  // the key holds something other than a counter
        }
      } else if (op == 'C') {
        data = "1";
        for (const std::string& k : split_keys(key))
          if (!data_.count(k)) data = "0";
      } else {
        return false;
      }
      std::string reply(1, status);
      put_u32(reply, static_cast<uint32_t>(data.size()));
      reply += data;
      if (!send_all(c.fd, reply)) return false;
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<Client> clients_;
  std::map<std::string, std::string> data_;
};

TCPStore::TCPStore(std::string host, int port, bool is_server, std::chrono::milliseconds timeout)
    : Store(timeout), host_(std::move(host)), port_(port) {
  TT_CHECK(port >= 0 && port <= 65535, "TCPStore expects a port in 0..65535, but got {}.", port);
  TT_CHECK(is_server || port > 0, "TCPStore: a client needs the server's port, but got port 0.");
  if (is_server) {
    server_ = std::make_unique<Server>(host_, port_);
    port_ = server_->port();
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port_);
  const int rc = ::getaddrinfo(host_.c_str(), port_text.c_str(), &hints, &found);
  TT_CHECK(rc == 0, "TCPStore could not resolve the address '{}' (MASTER_ADDR): {}.", host_,
           ::gai_strerror(rc));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error;
  for (;;) {
    const int fd = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
    if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
      fd_ = fd;
      break;
    }
    last_error = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::freeaddrinfo(found);
  TT_CHECK(fd_ >= 0,
           "TCPStore could not connect to {}:{} within {}: {}; is rank 0 running, and do "
           "MASTER_ADDR and MASTER_PORT name it?",
           host_, port_, seconds(timeout), last_error);
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{};
  tv.tv_sec = static_cast<long>(timeout.count() / 1000);
  tv.tv_usec = static_cast<long>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

std::string TCPStore::describe() const { return fmt::format("TCPStore {}:{}", host_, port_); }

std::string TCPStore::request(char op, const std::string& key, const std::string& value) {
  std::string message(1, op);
  put_u32(message, static_cast<uint32_t>(key.size()));
  message += key;
  put_u32(message, static_cast<uint32_t>(value.size()));
  message += value;
  const char* what = op == 'S' ? "set" : op == 'G' ? "get" : op == 'A' ? "add" : "check";
  const std::string shown = op == 'C' ? std::string("keys") : "'" + key + "'";
  TT_CHECK(send_all(fd_, message), "{}: sending '{} {}' failed: {}; did rank 0 exit?", describe(),
           what, shown, std::strerror(errno));
  char header[5];
  if (recv_all(fd_, header, sizeof header) != 0) {
    const int e = errno;
    TT_CHECK(e != EAGAIN && e != EWOULDBLOCK, "{}: no answer to '{} {}' within {}.", describe(),
             what, shown, seconds(timeout()));
    TT_FAIL("{}: the server closed the connection during '{} {}'{}; did rank 0 exit?", describe(),
            what, shown, e == 0 ? "" : std::string(": ") + std::strerror(e));
  }
  std::string data(get_u32(header + 1), '\0');
  TT_CHECK(data.empty() || recv_all(fd_, data.data(), data.size()) == 0,
           "{}: the answer to '{} {}' was cut short; did rank 0 exit?", describe(), what, shown);
  TT_CHECK(header[0] != 2,
           "{}: 'add {}' needs an integer counter, but the key holds another value.", describe(),
           shown);
  TT_CHECK(header[0] == 0, "{}: the key {} is not set.", describe(), shown);
  return data;
}

void TCPStore::set(const std::string& key, const std::string& value) { request('S', key, value); }

std::string TCPStore::get(const std::string& key) {
  wait({key});
  return request('G', key, "");
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  return std::stoll(request('A', key, std::to_string(delta)));
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::string joined;
  for (size_t i = 0; i < keys.size(); ++i) joined += (i ? std::string(1, '\0') : "") + keys[i];
  return request('C', joined, "") == "1";
}

}  // namespace tt::distributed
