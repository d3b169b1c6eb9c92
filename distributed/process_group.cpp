// The checks every collective shares, the CPU group, and init(): which store, which
// device, which kind of group.
#include "distributed/process_group.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/error.h"
#include "distributed/env.h"
#include "distributed/store_barrier.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#include "distributed/cuda/nccl_group.h"
#endif

namespace tt::distributed {

const char* reduce_op_name(ReduceOp op) { return op == ReduceOp::Sum ? "sum" : "max"; }

std::string ProcessGroup::describe() const {
  return fmt::format("rank {} of {} on {}", rank_, size_, device_.str());
}

void ProcessGroup::check(const char* op, const Tensor& t, const char* role) const {
  TT_CHECK(t.defined(), "{} expects a defined {} tensor, but got an undefined one.", op, role);
  TT_CHECK(t.device() == device_,
           "{} expects its {} tensor on {} (the device of {}), but got one on {}.", op, role,
           device_.str(), describe(), t.device().str());
  TT_CHECK(t.is_contiguous(),
           "{} expects a contiguous {} tensor (collectives read and write memory in order), but "
           "got one with sizes {} and strides {}; call .contiguous() first.",
           op, role, fmt::join(t.sizes(), "x"), fmt::join(t.strides(), "x"));
}

// all_gather and reduce_scatter: one of the two tensors holds every rank's part (the
// output when output_whole), the other one rank's.
void ProcessGroup::check_whole_and_part(const char* op, const Tensor& output, const Tensor& input,
                                        bool output_whole) const {
  check(op, input, "input");
  check(op, output, "output");
  TT_CHECK(output.dtype() == input.dtype(),
           "{} expects the output's dtype to be the input's ({}), but got {}.", op,
           dtype_name(input.dtype()), dtype_name(output.dtype()));
  const Tensor& whole = output_whole ? output : input;
  const Tensor& part = output_whole ? input : output;
  TT_CHECK(whole.numel() == size() * part.numel(),
           "{} expects an {} of {} ranks x {} = {} elements, but got {}.", op,
           output_whole ? "output" : "input", size(), part.numel(), size() * part.numel(),
           whole.numel());
}

void ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op) {
  check("all_reduce", tensor, "input");
  TT_CHECK(!(tensor.dtype() == DType::Bool && op == ReduceOp::Sum),
           "all_reduce with sum expects a numeric tensor, but got bool; use max for a logical or.");
  run_all_reduce(tensor.data_ptr(), tensor.numel(), tensor.dtype(), op);
}

namespace {
class DoneWork : public Work {
 public:
  void wait() override {}
};
}  // namespace

std::shared_ptr<Work> ProcessGroup::all_reduce_async(const Tensor& tensor, ReduceOp op) {
  check("all_reduce", tensor, "input");
  TT_CHECK(!(tensor.dtype() == DType::Bool && op == ReduceOp::Sum),
           "all_reduce with sum expects a numeric tensor, but got bool; use max for a logical or.");
  return run_all_reduce_async(tensor, op);
}

std::shared_ptr<Work> ProcessGroup::run_all_reduce_async(const Tensor& tensor, ReduceOp op) {
  run_all_reduce(tensor.data_ptr(), tensor.numel(), tensor.dtype(), op);
  return std::make_shared<DoneWork>();
}

void ProcessGroup::all_gather_into_tensor(const Tensor& output, const Tensor& input) {
  check_whole_and_part("all_gather", output, input, true);
  run_all_gather(input.data_ptr(), output.data_ptr(), input.numel(), input.dtype());
}

std::vector<Tensor> ProcessGroup::all_gather(const Tensor& input) {
  check("all_gather", input, "input");
  const Tensor out = Tensor::empty({size() * input.numel()}, input.dtype(), device_);
  all_gather_into_tensor(out, input);
  std::vector<Tensor> parts;
  for (int r = 0; r < size(); ++r)
    parts.push_back(out.narrow(0, r * input.numel(), input.numel()).view(input.sizes()));
  return parts;
}

void ProcessGroup::reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op) {
  check_whole_and_part("reduce_scatter", output, input, false);
  TT_CHECK(!(input.dtype() == DType::Bool && op == ReduceOp::Sum),
           "reduce_scatter with sum expects a numeric tensor, but got bool.");
  run_reduce_scatter(input.data_ptr(), output.data_ptr(), output.numel(), input.dtype(), op);
}

void ProcessGroup::broadcast(const Tensor& tensor, int src) {
  check("broadcast", tensor, "input");
  TT_CHECK(src >= 0 && src < size(), "broadcast expects a source rank in 0..{}, but got {}.",
           size() - 1, src);
  run_broadcast(tensor.data_ptr(), tensor.numel(), tensor.dtype(), src);
}

namespace {

// The CPU has no NCCL: one rank is every collective's identity; several ranks can
// meet (barrier) through the store but exchange no data.
class CpuGroup : public ProcessGroup {
 public:
  CpuGroup(int rank, int world, std::shared_ptr<Store> store, std::chrono::milliseconds timeout)
      : ProcessGroup(rank, world, Device::cpu(), timeout) {
    if (world > 1) meet_ = std::make_unique<StoreBarrier>(std::move(store), rank, world, "tt/cpu");
  }
  void barrier() override {
    if (meet_) meet_->arrive_and_wait(timeout());
  }
  void synchronize() override {}

 protected:
  void run_all_reduce(void*, int64_t, DType, ReduceOp) override { only_one("all_reduce"); }
  void run_all_gather(const void* in, void* out, int64_t count, DType dtype) override {
    only_one("all_gather");
    if (in != out) std::memcpy(out, in, static_cast<size_t>(count) * dtype_size(dtype));
  }
  void run_reduce_scatter(const void* in, void* out, int64_t count, DType dtype,
                          ReduceOp) override {
    only_one("reduce_scatter");
    if (in != out) std::memcpy(out, in, static_cast<size_t>(count) * dtype_size(dtype));
  }
  void run_broadcast(void*, int64_t, DType, int) override { only_one("broadcast"); }

 private:
  void only_one(const char* op) const {
    TT_CHECK(size() == 1,
             "{} on the CPU needs a group of one rank (the CPU has no NCCL), but this group has "
             "{} ranks; run each rank on its own CUDA device.",
             op, size());
  }
  std::unique_ptr<StoreBarrier> meet_;
};

std::mutex g_mutex;
std::shared_ptr<ProcessGroup> g_default;

std::shared_ptr<Store> default_store(const LaunchEnv& env) {
  if (const char* path = std::getenv("TT_DIST_FILE_STORE"); path != nullptr && *path != '\0')
    return std::make_shared<FileStore>(path);
  return std::make_shared<TCPStore>(env.master_addr, env.master_port, env.rank == 0);
}

}  // namespace

std::shared_ptr<ProcessGroup> make_cpu_group(int rank, int world_size, std::shared_ptr<Store> store,
                                             std::chrono::milliseconds timeout) {
  TT_CHECK(world_size == 1 || store != nullptr,
           "A CPU group of {} ranks needs a store to meet through, but got none.", world_size);
  return std::make_shared<CpuGroup>(rank, world_size, std::move(store), timeout);
}

std::shared_ptr<ProcessGroup> init(int rank, int world_size, std::shared_ptr<Store> store,
                                   std::optional<Device> device,
                                   std::optional<std::chrono::milliseconds> timeout) {
  std::lock_guard<std::mutex> lock(g_mutex);
  TT_CHECK(!g_default,
           "tt::distributed::init() was already called in this process ({}); call "
           "tt::distributed::destroy() first.",
           g_default ? g_default->describe() : "");
  TT_CHECK(world_size >= 1 && rank >= 0 && rank < world_size,
           "tt::distributed::init() expects 0 <= rank < world size, but got rank {} of {}.", rank,
           world_size);
  const std::chrono::milliseconds t = timeout ? *timeout : default_timeout();
  Device d = Device::cpu();
  if (device) {
    d = *device;
  } else {
#if TT_CUDA
    if (cuda::device_count() > 0) d = Device::cuda(rank % cuda::device_count());
#endif
  }
  if (d.is_cpu()) {
    g_default = make_cpu_group(rank, world_size, std::move(store), t);
  } else {
#if TT_CUDA
    TT_CHECK(store != nullptr || world_size == 1,
             "tt::distributed::init() needs a store for {} ranks, but got none.", world_size);
    g_default = make_nccl_group(rank, world_size, d, std::move(store), t);
#else
    TT_FAIL(
        "tt::distributed::init() was asked for {}, but tensortune was built without CUDA "
        "(TT_CUDA=OFF).",
        d.str());
#endif
  }
  return g_default;
}

std::shared_ptr<ProcessGroup> init(const InitOptions& options) {
  const LaunchEnv env = read_launch_env();
  std::optional<Device> device = options.device;
#if TT_CUDA
  if (!device && cuda::device_count() > 0) {
    const int count = cuda::device_count();
    TT_CHECK(env.local_rank < count,
             "tt::distributed::init(): LOCAL_RANK {} names CUDA device {}, but this host has {} "
             "CUDA device{}; start at most {} processes per host.",
             env.local_rank, env.local_rank, count, count == 1 ? "" : "s", count);
    device = Device::cuda(env.local_rank);
  }
#endif
  std::shared_ptr<Store> store = options.store ? options.store : default_store(env);
  if (options.timeout) store->set_timeout(*options.timeout);
  return init(env.rank, env.world_size, std::move(store), device, options.timeout);
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_default != nullptr;
}

std::shared_ptr<ProcessGroup> default_group() {
  std::lock_guard<std::mutex> lock(g_mutex);
  TT_CHECK(g_default != nullptr,
           "No process group: call tt::distributed::init() (under tt launch or torchrun) first.");
  return g_default;
}

void destroy() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_default.reset();
}

#if !TT_CUDA
std::vector<std::shared_ptr<ProcessGroup>> init_local(const std::vector<int>& devices) {
  TT_CHECK(devices.empty(),
           "init_local was asked for {} CUDA device(s), but tensortune was built without CUDA "
           "(TT_CUDA=OFF).",
           devices.size());
  return {make_cpu_group(0, 1, nullptr, default_timeout())};
}
GroupCall::GroupCall() = default;
GroupCall::~GroupCall() noexcept(false) = default;
#endif

}  // namespace tt::distributed
