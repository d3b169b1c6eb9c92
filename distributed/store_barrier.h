// A barrier and an orderly exit through a Store, for groups whose ranks must meet
// without a GPU: the CPU group's barrier, and the exit handshake that keeps rank 0's
// TCPStore server up until every rank has stopped using it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "distributed/store.h"

namespace tt::distributed {

class StoreBarrier {
 public:
  // `prefix` keeps the keys of several groups on one store apart.
  StoreBarrier(std::shared_ptr<Store> store, int rank, int world, std::string prefix);
  // Rank 0 waits (up to the store's timeout) for every rank to say it is leaving.
  ~StoreBarrier();
  void arrive_and_wait(std::chrono::milliseconds timeout);
  Store& store() { return *store_; }
  // After an error: leave without the exit handshake (the others may never come).
  void abandon() { store_.reset(); }

 private:
  std::shared_ptr<Store> store_;
  int rank_;
  int world_;
  std::string prefix_;
  int64_t round_ = 0;
};

}  // namespace tt::distributed
