"""PyTorch's float32 scaled_dot_product_attention (TF32 off) beside
tools/device/attention_simt_bench.cu, at its shapes, in the same call: each launch after a
256 MB L2 flush, CUDA events, the median of 20; TFLOP/s counts 4 B H L S E (halved for
causal); the error is the relative L2 against float64 on the same inputs. The
"qkv-strided" shape reads q/k/v as head views of a [B, T, 3, H, E] projection (issue 18).
Rows: SB,<shape>,pytorch-sdpa-fp32,<ms>,<tflops>,<rel_err>
"""
import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")


def median_ms(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        flush.fill_(i & 0xFF)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


print("GPU", torch.cuda.get_device_name(0), "torch", torch.__version__)
torch.manual_seed(0)
shapes = [(8, 16, 1024, 64, False, False), (8, 16, 1024, 64, False, True),
          (8, 16, 1024, 64, True, False), (2, 16, 4096, 64, False, False),
          (2, 16, 4096, 64, True, False), (8, 16, 1024, 128, False, False),
          (8, 16, 1024, 128, True, False), (8, 16, 1024, 32, False, False)]
for B, H, T, E, causal, strided in shapes:
    name = f"B{B} H{H} T{T} E{E}" + (" qkv-strided" if strided else "") + (" causal" if causal else "")
    flops = 4.0 * B * H * T * T * E * (0.5 if causal else 1.0)
    if strided:
        qkv = torch.randn(B, T, 3, H, E, device="cuda")
        q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    else:
        q, k, v = (torch.randn(B, H, T, E, device="cuda") for _ in range(3))
    ref = F.scaled_dot_product_attention(q[:1].double(), k[:1].double(), v[:1].double(),
                                         is_causal=causal)
    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    err = ((fn()[:1].double() - ref).norm() / ref.norm()).item()
    ms = median_ms(fn)
    print(f"SB,{name},pytorch-sdpa-fp32,{ms:.4f},{flops / ms / 1e9:.1f},{err:.2e}", flush=True)
