#include "distributed/store_barrier.h"

#include <iostream>
#include <thread>

#include "core/error.h"

namespace tt::distributed {

StoreBarrier::StoreBarrier(std::shared_ptr<Store> store, int rank, int world, std::string prefix)
    : store_(std::move(store)), rank_(rank), world_(world), prefix_(std::move(prefix)) {}

StoreBarrier::~StoreBarrier() {
  if (!store_ || world_ == 1) return;
  try {
    store_->add(prefix_ + "/exit", 1);
    if (rank_ != 0) return;
    const auto deadline = std::chrono::steady_clock::now() + store_->timeout();
    while (store_->add(prefix_ + "/exit", 0) < world_ &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } catch (const std::exception& e) {
    // A destructor must not throw; the others may have gone first on an error path.
    std::cerr << "tt::distributed: leaving the group: " << e.what() << "\n";
  }
}

void StoreBarrier::arrive_and_wait(std::chrono::milliseconds timeout) {
  const std::string key = fmt::format("{}/barrier/{}", prefix_, round_++);
  store_->add(key, 1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const int64_t arrived = store_->add(key, 0);
    if (arrived >= world_) return;
    TT_CHECK(std::chrono::steady_clock::now() < deadline,
             "barrier: rank {} waited {:g} s but only {} of {} ranks arrived; did a rank stop or "
             "take another path? (TT_DIST_TIMEOUT_S sets the wait)",
             rank_, static_cast<double>(timeout.count()) / 1000.0, arrived, world_);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace tt::distributed
