// Key-value stores through which the processes of one job meet before NCCL exists:
// rank 0 publishes the NCCL unique id, the others wait for it; counters (add) and
// waits give barriers that need no GPU. Two kinds, as torch.distributed has:
// TCPStore (rank 0 serves on MASTER_ADDR:MASTER_PORT, everybody is a client) and
// FileStore (a file every process can reach, for hosts without a usable port).
//
// Every call has a deadline: a key that never comes, a server that never answers or
// a refused connection ends in a tt::Error sentence naming the store, the key and the
// time waited, never in a silent hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tt::distributed {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // Waits for the key (up to the store's timeout), then returns its value.
  virtual std::string get(const std::string& key) = 0;
  // Adds `delta` to the integer counter `key` (0 when absent); returns the new value.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // True when every key is present (no waiting).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Waits until every key is present; throws tt::Error after `timeout`.
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout()); }
  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) { timeout_ = t; }
  // "TCPStore 127.0.0.1:29500", "FileStore /tmp/x": for messages.
  virtual std::string describe() const = 0;

 protected:
  explicit Store(std::chrono::milliseconds timeout) : timeout_(timeout) {}

 private:
  std::chrono::milliseconds timeout_;
};

// The store's default deadline: TT_DIST_TIMEOUT_S seconds when set (a positive
// number; anything else is a tt::Error sentence), else 300 s.
std::chrono::milliseconds default_timeout();

class TCPStore : public Store {
 public:
  // is_server: this process listens on host:port (port 0 picks a free one, see
  // port()) and serves every client until it is destroyed; it is also a client of
  // itself. A client retries a refused connection until `timeout`, since rank 0 may
  // start last.
  TCPStore(std::string host, int port, bool is_server,
           std::chrono::milliseconds timeout = default_timeout());
  ~TCPStore() override;
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  std::string describe() const override;
  int port() const { return port_; }

 private:
  class Server;
  std::string request(char op, const std::string& key, const std::string& value);
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  int fd_ = -1;
};

class FileStore : public Store {
 public:
  // Every process of the job opens the same path; the file is created when absent.
  // Writes are appended records under an flock, so processes never see half a record.
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = default_timeout());

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  bool check(const std::vector<std::string>& keys) override;
  std::string describe() const override { return "FileStore " + path_; }

 private:
  std::string path_;
};

}  // namespace tt::distributed
