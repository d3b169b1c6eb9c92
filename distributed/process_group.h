// A process group: the ranks of one job and the collectives between them, as
// torch.distributed's, on tt::Tensor. On CUDA it is one NCCL communicator per
// process (one GPU per process: LOCAL_RANK picks it), and every collective is queued
// on the device's tt stream (tt::cuda::stream), so it is ordered with the ops around
// it without extra synchronisation; like torch.distributed's, a collective returns
// once it is queued. Each NCCL communicator is non-blocking and watched: a
// collective that does not finish within the timeout (TT_DIST_TIMEOUT_S, 300 s by
// default), or an error NCCL reports, aborts the communicator and becomes a
// tt::Error sentence at the next call (and a line on stderr at once), never a hang
// without a message.
//
// On the CPU (a build without CUDA, or a host without a GPU) a group of one rank
// makes every collective the identity, so a tensor-parallel model runs unchanged
// with world size 1; a CPU group of several ranks meets through its store (barrier)
// but refuses data collectives with a sentence.
//
// Also a single-process form over every local GPU (init_local: NCCL's
// ncclCommInitAll), for tests and benchmarks: one group per device, driven from one
// thread inside a GroupCall.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"
#include "distributed/store.h"

namespace tt::distributed {

enum class ReduceOp { Sum, Max };
const char* reduce_op_name(ReduceOp op);  // "sum", "max"

// A collective started on a side stream (all_reduce_async): wait() makes the device's
// tt stream wait for it (no host wait), and only then may anything read the tensor.
class Work {
 public:
  virtual ~Work() = default;
  virtual void wait() = 0;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  Device device() const { return device_; }
  std::string describe() const;  // "rank 1 of 2 on cuda:1"

  // In place on every rank's `tensor`: afterwards each holds the sum (max) over ranks.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // all_reduce on the group's communication stream, so that the ops queued after it
  // on the tt stream run meanwhile (overlapping communication with compute); the
  // result is there once the returned Work's wait() was called. Without a side stream
  // (the CPU) it runs at once and wait() does nothing.
  std::shared_ptr<Work> all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // Every rank's `input` into `output` (size() * input.numel() elements, contiguous),
  // rank by rank: torch.distributed.all_gather_into_tensor.
  void all_gather_into_tensor(const Tensor& output, const Tensor& input);
  // Every rank's `input`, one tensor per rank: torch.distributed.all_gather.
  std::vector<Tensor> all_gather(const Tensor& input);
  // `input` holds size() equal blocks; rank r receives the reduction of every rank's
  // block r into `output`: torch.distributed.reduce_scatter_tensor.
  void reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::Sum);
  // `tensor` of rank `src` into every rank's `tensor`.
  void broadcast(const Tensor& tensor, int src = 0);
  // Returns once every rank has reached it (and this rank's queued collectives ended).
  virtual void barrier() = 0;
  // Waits for this rank's queued collectives, within the timeout.
  virtual void synchronize() = 0;
  std::chrono::milliseconds timeout() const { return timeout_; }

 protected:
  ProcessGroup(int rank, int size, Device device, std::chrono::milliseconds timeout)
      : rank_(rank), size_(size), device_(device), timeout_(timeout) {}
  // count elements of dtype; the checks are done.
  virtual void run_all_reduce(void* data, int64_t count, DType dtype, ReduceOp op) = 0;
  virtual void run_all_gather(const void* in, void* out, int64_t count, DType dtype) = 0;
  virtual void run_reduce_scatter(const void* in, void* out, int64_t count, DType dtype,
                                  ReduceOp op) = 0;
  virtual void run_broadcast(void* data, int64_t count, DType dtype, int src) = 0;
  // Default: run_all_reduce, then a finished Work.
  virtual std::shared_ptr<Work> run_all_reduce_async(const Tensor& tensor, ReduceOp op);

 private:
  void check(const char* op, const Tensor& t, const char* role) const;
  void check_whole_and_part(const char* op, const Tensor& output, const Tensor& input,
                            bool output_whole) const;
  int rank_;
  int size_;
  Device device_;
  std::chrono::milliseconds timeout_;
};

struct InitOptions {
  // Where the ranks meet; default: TT_DIST_FILE_STORE names a FileStore when set,
  // else a TCPStore on MASTER_ADDR:MASTER_PORT served by rank 0.
  std::shared_ptr<Store> store;
  // Default: cuda:LOCAL_RANK when this build and host have CUDA devices, else the CPU.
  std::optional<Device> device;
  // Default: TT_DIST_TIMEOUT_S, else 300 s.
  std::optional<std::chrono::milliseconds> timeout;
};

// torch.distributed.init_process_group: reads the launcher's environment (env.h),
// makes the device current (cudaSetDevice(LOCAL_RANK)), meets the other ranks and
// returns the default group (also default_group()). Throws tt::Error sentences for a
// bad environment, a rank that never comes, or a second init without destroy().
std::shared_ptr<ProcessGroup> init(const InitOptions& options = {});
// The same with the ranks given, not read from the environment.
std::shared_ptr<ProcessGroup> init(int rank, int world_size, std::shared_ptr<Store> store,
                                   std::optional<Device> device = std::nullopt,
                                   std::optional<std::chrono::milliseconds> timeout = std::nullopt);
bool is_initialized();
std::shared_ptr<ProcessGroup> default_group();  // throws unless initialised
void destroy();                                 // torch.distributed.destroy_process_group

// The single-process form: one group per device in `devices` (every local GPU when
// empty) from one ncclCommInitAll. Collectives on these groups from one thread must
// sit inside a GroupCall (NCCL's group semantics), e.g.
//   { GroupCall g; for (i...) groups[i]->all_reduce(t[i]); }
// On the CPU `devices` must be empty or {cpu} and the one group is the identity.
std::vector<std::shared_ptr<ProcessGroup>> init_local(const std::vector<int>& devices = {});

// ncclGroupStart/ncclGroupEnd for the scope (nothing on the CPU). Nesting is fine.
class GroupCall {
 public:
  GroupCall();
  ~GroupCall() noexcept(false);
  GroupCall(const GroupCall&) = delete;
  GroupCall& operator=(const GroupCall&) = delete;
};

// Creates the CPU form of a group (used by init on the CPU; public for tests).
std::shared_ptr<ProcessGroup> make_cpu_group(int rank, int world_size, std::shared_ptr<Store> store,
                                             std::chrono::milliseconds timeout);

}  // namespace tt::distributed
