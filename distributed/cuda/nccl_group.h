// The NCCL forms of ProcessGroup (internal to distributed/; CUDA builds only).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "distributed/process_group.h"

namespace tt::distributed {

// One communicator of `world` ranks, this process being `rank` on `device`; the NCCL
// unique id travels through `store`.
std::shared_ptr<ProcessGroup> make_nccl_group(int rank, int world, Device device,
                                              std::shared_ptr<Store> store,
                                              std::chrono::milliseconds timeout);

}  // namespace tt::distributed
