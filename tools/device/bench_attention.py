"""PyTorch's side of the attention comparison (issue 19; tools/device/attention_check.sh).

At the same shapes as tools/device/attention_harness.cpp: PyTorch's float32
scaled_dot_product_attention (its default backend choice: the memory-efficient
kernel on sm_90), and the plain composition softmax(q k^T * s) v in float32 and with
TF32 matmuls. Each launch follows an L2 flush, CUDA events around it
(bench_pytorch.time_samples), the median of the repetitions; TFLOP/s counts 4 B H L S E
(halved for causal); the error is the relative L2 against float64 on the same inputs
(computed on the GPU).
Rows: RESULT,<shape>,<impl>,<ms>,<tflops>,<rel_err>,
ATTN_SHAPES="2,3": only those shapes of the full list (0-based), as the harness.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import time_samples  # noqa: E402

quick = "--quick" in sys.argv
reps = 5 if quick else 20
shapes = [(8, 16, 1024, 64, False), (8, 16, 1024, 64, True), (2, 16, 4096, 64, False),
          (2, 16, 4096, 64, True), (8, 16, 1024, 128, False), (8, 16, 1024, 128, True)]
if quick:
    shapes = shapes[:2]
if os.environ.get("ATTN_SHAPES"):
    picks = {int(i) for i in os.environ["ATTN_SHAPES"].split(",")}
    shapes = [s for i, s in enumerate(shapes) if i in picks]


def median_ms(fn):
    times = sorted(time_samples(fn, warmup=1, reps=reps))
    return times[len(times) // 2]


def plain(q, k, v, causal):
    s = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    if causal:
        L, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(L, S, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


def rel(a, b):
    return ((a.double() - b).norm() / b.norm()).item()


print("GPU", torch.cuda.get_device_name(0), "torch", torch.__version__)
torch.manual_seed(0)
for B, H, T, E, causal in shapes:
    name = f"B{B} H{H} T{T} E{E}" + (" causal" if causal else "")
    flops = 4.0 * B * H * T * T * E * (0.5 if causal else 1.0)
    q, k, v = (torch.randn(B, H, T, E, device="cuda") for _ in range(3))
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
    runs = {
        "torch-sdpa-fp32": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
        "plain-fp32": lambda: plain(q, k, v, causal),
        "plain-tf32": lambda: plain(q, k, v, causal),
    }
    for impl, fn in runs.items():
        torch.backends.cuda.matmul.allow_tf32 = impl == "plain-tf32"
        ms = median_ms(fn)
        err = rel(fn(), ref)
        print(f"RESULT,{name},{impl},{ms:.4f},{flops / ms / 1e9:.1f},{err:.2e},", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    del ref
    torch.cuda.empty_cache()
