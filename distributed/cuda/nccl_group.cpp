// ProcessGroup over NCCL. Every communicator is non-blocking (config.blocking = 0)
// so that no NCCL call can hang the caller: a call that answers ncclInProgress is
// polled with ncclCommGetAsyncError until it is done, failed, or past the timeout.
// A watchdog thread per group follows the queued collectives through CUDA events and
// aborts the communicator (ncclCommAbort, which also ends kernels waiting on a peer)
// when one is older than the timeout or NCCL reports an asynchronous error; the next
// call on the group then throws the sentence, which is also printed at once.
#include "distributed/cuda/nccl_group.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "distributed/store_barrier.h"

namespace tt::distributed {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds t) {
  return fmt::format("{:g} s", static_cast<double>(t.count()) / 1000.0);
}

// NVLink multicast (NVLS) can take a shared host's GPUs out of service; it is off
// unless the user turns it on explicitly.
void default_nvls_off() { ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::F32:
      return ncclFloat32;
    case DType::F64:
      return ncclFloat64;
    case DType::I64:
      return ncclInt64;
    case DType::I32:
      return ncclInt32;
    case DType::BF16:
      return ncclBfloat16;
    case DType::F16:
      return ncclFloat16;
    case DType::U8:
    case DType::Bool:
      return ncclUint8;
  }
  TT_FAIL("NCCL has no type for dtype {}.", dtype_name(t));
}

ncclRedOp_t nccl_op(ReduceOp op) { return op == ReduceOp::Sum ? ncclSum : ncclMax; }

class NcclGroup;
// The groups whose calls the current GroupCall deferred (per host thread).
thread_local int t_group_depth = 0;
thread_local std::vector<NcclGroup*> t_group_members;

class NcclGroup : public ProcessGroup {
 public:
  // The multi-process form: the unique id through the store.
  NcclGroup(int rank, int world, Device device, std::shared_ptr<Store> store,
            std::chrono::milliseconds timeout)
      : ProcessGroup(rank, world, device, timeout) {
    default_nvls_off();
    cuda::check_device(device.index);
    // One GPU per process: the device stays current for the rest of the process, as
    // torch.cuda.set_device(LOCAL_RANK) in a torchrun script.
    TT_CUDA_CHECK(cudaSetDevice(device.index));
    stream_ = cuda::stream(device.index);
    static int generation = 0;  // every rank makes its groups in the same order
    const std::string prefix = fmt::format("tt/nccl/{}", generation++);
    ncclUniqueId id;
    if (world > 1) {
      if (rank == 0) {
        check_call("ncclGetUniqueId", ncclGetUniqueId(&id));
        store->set(prefix + "/id", std::string(id.internal, sizeof id.internal));
      } else {
        const std::string bytes = store->get(prefix + "/id");
        TT_CHECK(bytes.size() == sizeof id.internal,
                 "{}: the NCCL unique id in the store has {} bytes, but NCCL's has {}.", describe(),
                 bytes.size(), sizeof id.internal);
        std::memcpy(id.internal, bytes.data(), bytes.size());
      }
      exit_ = std::make_unique<StoreBarrier>(std::move(store), rank, world, prefix);
    } else {
      check_call("ncclGetUniqueId", ncclGetUniqueId(&id));
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const ncclResult_t r = ncclCommInitRankConfig(&comm_, world, id, rank, &config);
    if (r != ncclInProgress && r != ncclSuccess) {
      comm_ = nullptr;
      check_call("ncclCommInitRankConfig", r);
    }
    wait_ready("ncclCommInitRankConfig (did every rank start? WORLD_SIZE is " +
               std::to_string(world) + ")");
    start_watchdog();
  }

  // The single-process form: a communicator ncclCommInitAll made.
  NcclGroup(int rank, int world, Device device, ncclComm_t comm, std::chrono::milliseconds timeout)
      : ProcessGroup(rank, world, device, timeout), comm_(comm), blocking_(true) {
    stream_ = cuda::stream(device.index);
    start_watchdog();
  }

  ~NcclGroup() override {
    stop_ = true;
    if (watchdog_.joinable()) watchdog_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& p : pending_) cudaEventDestroy(p.event);
    if (comm_ == nullptr) return;
    cuda::DeviceGuard guard(device().index);
    if (blocking_) {
      // ncclCommInitAll's communicators, destroyed one after the other from one thread
      // as NCCL's own single-process example does.
      ncclCommDestroy(comm_);
      if (comm_stream_ != nullptr) cudaStreamDestroy(comm_stream_);
      return;
    }
    // Finalize flushes what is queued; past the timeout the communicator is aborted.
    ncclResult_t r = ncclCommFinalize(comm_);
    const auto deadline = Clock::now() + timeout();
    while (r == ncclInProgress && Clock::now() < deadline) {
      std::this_thread::yield();
      ncclCommGetAsyncError(comm_, &r);
    }
    if (r == ncclSuccess)
      ncclCommDestroy(comm_);
    else
      ncclCommAbort(comm_);
  }

  void barrier() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!token_.defined()) token_ = Tensor::zeros({1}, DType::I32, device());
    }
    all_reduce(token_, ReduceOp::Sum);
    synchronize();
  }

  void synchronize() override {
    // Polls rather than cudaEventSynchronize: a peer that never calls the collective
    // must become an error here, not a hang. Every pending event: the side stream's
    // (all_reduce_async) may finish out of order with the tt stream's.
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        throw_if_failed();
        bool all_done = true;
        for (const Pending& p : pending_) {
          const cudaError_t q = cudaEventQuery(p.event);
          if (q == cudaSuccess) continue;
          if (q != cudaErrorNotReady) TT_CUDA_CHECK(q);
          all_done = false;
          if (Clock::now() - p.queued > timeout())
            abort_locked(
                fmt::format("{}: {} did not finish within {} (TT_DIST_TIMEOUT_S); a "
                            "peer rank may have stopped or called another collective",
                            describe(), p.what, seconds(timeout())));
          break;
        }
        if (all_done) return;
      }
      std::this_thread::yield();  // outside the lock: the watchdog needs it too
    }
  }

  // After ncclGroupEnd: the deferred calls are now queued.
  void group_ended(ncclResult_t r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (r == ncclInProgress)
      wait_ready_locked("ncclGroupEnd");
    else if (r != ncclSuccess)
      fail_locked("ncclGroupEnd", r);
    record_locked(deferred_what_);
  }

 protected:
  void run_all_reduce(void* data, int64_t count, DType dtype, ReduceOp op) override {
    enqueue("all_reduce", [&] {
      return ncclAllReduce(data, data, static_cast<size_t>(count), nccl_type(dtype), nccl_op(op),
                           comm_, stream_);
    });
  }
  void run_all_gather(const void* in, void* out, int64_t count, DType dtype) override {
    enqueue("all_gather", [&] {
      return ncclAllGather(in, out, static_cast<size_t>(count), nccl_type(dtype), comm_, stream_);
    });
  }
  void run_reduce_scatter(const void* in, void* out, int64_t count, DType dtype,
                          ReduceOp op) override {
    enqueue("reduce_scatter", [&] {
      return ncclReduceScatter(in, out, static_cast<size_t>(count), nccl_type(dtype), nccl_op(op),
                               comm_, stream_);
    });
  }
  std::shared_ptr<Work> run_all_reduce_async(const Tensor& tensor, ReduceOp op) override;
  void run_broadcast(void* data, int64_t count, DType dtype, int src) override {
    enqueue("broadcast", [&] {
      return ncclBroadcast(data, data, static_cast<size_t>(count), nccl_type(dtype), src, comm_,
                           stream_);
    });
  }

 private:
  struct Pending {
    cudaEvent_t event;
    Clock::time_point queued;
    std::string what;
  };

  template <typename Call>
  void enqueue(const char* what, Call call) {
    std::lock_guard<std::mutex> lock(mu_);
    throw_if_failed();
    cuda::DeviceGuard guard(device().index);
    const ncclResult_t r = call();
    if (t_group_depth > 0) {
      if (r != ncclSuccess && r != ncclInProgress) fail_locked(what, r);
      deferred_what_ = what;
      if (std::find(t_group_members.begin(), t_group_members.end(), this) == t_group_members.end())
        t_group_members.push_back(this);
      return;
    }
    if (r == ncclInProgress)
      wait_ready_locked(what);
    else if (r != ncclSuccess)
      fail_locked(what, r);
    record_locked(what);
  }

  void record_locked(const std::string& what, cudaStream_t on = nullptr) {
    cuda::DeviceGuard guard(device().index);
    cudaEvent_t event;
    TT_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    TT_CUDA_CHECK(cudaEventRecord(event, on != nullptr ? on : stream_));
    pending_.push_back({event, Clock::now(), what});
  }

  void wait_ready(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    wait_ready_locked(what);
  }

  // Polls a non-blocking communicator until the last call is done.
  void wait_ready_locked(const std::string& what) {
    const auto deadline = Clock::now() + timeout();
    for (;;) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
      if (r != ncclSuccess) fail_locked("ncclCommGetAsyncError", r);
      if (state == ncclSuccess) return;
      if (state != ncclInProgress) fail_locked(what, state);
      if (Clock::now() > deadline)
        abort_locked(fmt::format("{}: NCCL's {} did not finish within {} (TT_DIST_TIMEOUT_S)",
                                 describe(), what, seconds(timeout())));
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void check_call(const std::string& what, ncclResult_t r) {
    if (r == ncclSuccess) return;
    std::lock_guard<std::mutex> lock(mu_);
    fail_locked(what, r);
  }

  [[noreturn]] void fail_locked(const std::string& what, ncclResult_t r) {
    const char* detail = comm_ != nullptr ? ncclGetLastError(comm_) : ncclGetLastError(nullptr);
    abort_locked(fmt::format("{}: NCCL's {} failed with {}{}", describe(), what,
                             ncclGetErrorString(r),
                             detail && *detail ? fmt::format(" ({})", detail) : ""));
  }

  // Aborts the communicator, remembers why for every later call, and throws.
  [[noreturn]] void abort_locked(const std::string& why) {
    abort_quietly_locked(why);
    throw Error(error_);
  }

  void abort_quietly_locked(const std::string& why) {
    if (exit_) exit_->abandon();
    if (comm_ != nullptr) {
      ncclCommAbort(comm_);
      comm_ = nullptr;
      error_ = why + "; the communicator was aborted.";
    } else if (error_.empty()) {
      error_ = why + ".";
    }
  }

  void throw_if_failed() const {
    if (!error_.empty())
      throw Error(
          fmt::format("{}: the group is unusable after an earlier error: {}", describe(), error_));
  }

  void start_watchdog() {
    watchdog_ = std::thread([this] {
      cudaSetDevice(device().index);
      while (!stop_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::lock_guard<std::mutex> lock(mu_);
        if (comm_ == nullptr) continue;
        while (!pending_.empty() && cudaEventQuery(pending_.front().event) == cudaSuccess) {
          cudaEventDestroy(pending_.front().event);
          pending_.pop_front();
        }
        std::string why;
        ncclResult_t state = ncclSuccess;
        ncclCommGetAsyncError(comm_, &state);
        if (state != ncclSuccess && state != ncclInProgress)
          why = fmt::format("{}: NCCL reported {} ({})", describe(), ncclGetErrorString(state),
                            ncclGetLastError(comm_));
        else if (!pending_.empty() && Clock::now() - pending_.front().queued > timeout())
          why = fmt::format(
              "{}: {} did not finish within {} (TT_DIST_TIMEOUT_S); a peer rank "
              "may have stopped or called another collective",
              describe(), pending_.front().what, seconds(timeout()));
        if (!why.empty()) {
          abort_quietly_locked(why);
          std::cerr << "tt::distributed watchdog: " << error_ << "\n";
        }
      }
    });
  }

  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaStream_t comm_stream_ = nullptr;  // all_reduce_async's, made on first use
  bool blocking_ = false;               // init_local's communicators are blocking
  std::unique_ptr<StoreBarrier> exit_;
  std::mutex mu_;
  std::deque<Pending> pending_;
  std::string deferred_what_;
  std::string error_;
  Tensor token_;
  std::atomic<bool> stop_{false};
  std::thread watchdog_;
};

// The tensor stays referenced until the tt stream was told to wait, so the caching
// allocator cannot hand its memory to an op queued before the collective ends.
class AsyncWork : public Work {
 public:
  AsyncWork(Tensor t, cudaEvent_t done, cudaStream_t consumer, int device)
      : tensor_(std::move(t)), done_(done), consumer_(consumer), device_(device) {}
  ~AsyncWork() override {
    if (done_ != nullptr) {
      cuda::DeviceGuard guard(device_);
      cudaStreamWaitEvent(consumer_, done_, 0);  // a Work dropped unwaited still orders
      cudaEventDestroy(done_);
    }
  }
  void wait() override {
    if (done_ == nullptr) return;
    cuda::DeviceGuard guard(device_);
    TT_CUDA_CHECK(cudaStreamWaitEvent(consumer_, done_, 0));
    TT_CUDA_CHECK(cudaEventDestroy(done_));
    done_ = nullptr;
    tensor_ = Tensor();
  }

 private:
  Tensor tensor_;
  cudaEvent_t done_;
  cudaStream_t consumer_;
  int device_;
};

std::shared_ptr<Work> NcclGroup::run_all_reduce_async(const Tensor& tensor, ReduceOp op) {
  std::lock_guard<std::mutex> lock(mu_);
  throw_if_failed();
  TT_CHECK(t_group_depth == 0, "{}: all_reduce_async cannot sit inside a GroupCall.", describe());
  cuda::DeviceGuard guard(device().index);
  if (comm_stream_ == nullptr) {
    int least = 0, greatest = 0;
    TT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    // High priority: the collective's few blocks start as soon as SMs free up, rather
    // than after every queued GEMM tile.
    TT_CUDA_CHECK(cudaStreamCreateWithPriority(&comm_stream_, cudaStreamNonBlocking, greatest));
  }
  cudaEvent_t ready, done;
  TT_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  TT_CUDA_CHECK(cudaEventRecord(ready, stream_));
  TT_CUDA_CHECK(cudaStreamWaitEvent(comm_stream_, ready, 0));
  TT_CUDA_CHECK(cudaEventDestroy(ready));
  const ncclResult_t r =
      ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), static_cast<size_t>(tensor.numel()),
                    nccl_type(tensor.dtype()), nccl_op(op), comm_, comm_stream_);
  if (r == ncclInProgress)
    wait_ready_locked("all_reduce_async");
  else if (r != ncclSuccess)
    fail_locked("all_reduce_async", r);
  record_locked("all_reduce_async", comm_stream_);
  TT_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  TT_CUDA_CHECK(cudaEventRecord(done, comm_stream_));
  return std::make_shared<AsyncWork>(tensor, done, stream_, device().index);
}

}  // namespace

std::shared_ptr<ProcessGroup> make_nccl_group(int rank, int world, Device device,
                                              std::shared_ptr<Store> store,
                                              std::chrono::milliseconds timeout) {
  return std::make_shared<NcclGroup>(rank, world, device, std::move(store), timeout);
}

std::vector<std::shared_ptr<ProcessGroup>> init_local(const std::vector<int>& devices) {
  default_nvls_off();
  std::vector<int> list = devices;
  if (list.empty())
    for (int i = 0; i < cuda::device_count(); ++i) list.push_back(i);
  TT_CHECK(!list.empty(), "init_local needs at least one CUDA device, but this host has none.");
  for (int d : list) cuda::check_device(d);
  std::vector<ncclComm_t> comms(list.size());
  const ncclResult_t r = ncclCommInitAll(comms.data(), static_cast<int>(list.size()), list.data());
  TT_CHECK(r == ncclSuccess, "init_local: NCCL's ncclCommInitAll over {} devices failed with {}.",
           list.size(), ncclGetErrorString(r));
  std::vector<std::shared_ptr<ProcessGroup>> groups;
  const auto timeout = default_timeout();
  for (size_t i = 0; i < list.size(); ++i)
    groups.push_back(std::make_shared<NcclGroup>(static_cast<int>(i), static_cast<int>(list.size()),
                                                 Device::cuda(list[i]), comms[i], timeout));
  return groups;
}

GroupCall::GroupCall() {
  const ncclResult_t r = ncclGroupStart();
  TT_CHECK(r == ncclSuccess, "GroupCall: NCCL's ncclGroupStart failed with {}.",
           ncclGetErrorString(r));
  ++t_group_depth;
}

GroupCall::~GroupCall() noexcept(false) {
  --t_group_depth;
  const ncclResult_t r = ncclGroupEnd();
  if (t_group_depth > 0) return;
  std::vector<NcclGroup*> members;
  members.swap(t_group_members);
  std::string first_error;
  for (NcclGroup* g : members) {
    try {
      g->group_ended(r);
    } catch (const Error& e) {
      if (first_error.empty()) first_error = e.what();
    }
  }
  // While another exception unwinds the stack, throwing would terminate the program.
  if (!first_error.empty() && std::uncaught_exceptions() == 0) throw Error(first_error);
}

}  // namespace tt::distributed
