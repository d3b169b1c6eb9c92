"""PyTorch's side of the all_reduce comparison (issue 23, tools/device/dist_check.sh):
   torchrun --nproc_per_node 2 tools/device/dist_allreduce_torch.py MB ITERS
the same measurement as `dist_harness allreduce MB ITERS`: an in-place float32
all_reduce (sum) on NCCL, 5 warm-ups, then ITERS timed one by one with CUDA events
on the current stream, median; bus bandwidth = bytes / time * 2 (n - 1) / n."""
import os
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off here
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch
import torch.distributed as dist


def main():
    mb, iters = float(sys.argv[1]), int(sys.argv[2])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    n = int(mb * 1e6 / 4)
    t = torch.ones(n, dtype=torch.float32, device="cuda")
    for _ in range(5):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    times = []
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(iters):
        a.record()
        dist.all_reduce(t)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    med = times[len(times) // 2]
    world = dist.get_world_size()
    algbw = n * 4 / (med * 1e-3) / 1e9
    busbw = algbw * 2 * (world - 1) / world
    if dist.get_rank() == 0:
        print(f"allreduce pytorch bytes={n * 4} ranks={world} median_ms={med:.3f} "
              f"algbw_GBps={algbw:.1f} busbw_GBps={busbw:.1f}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
