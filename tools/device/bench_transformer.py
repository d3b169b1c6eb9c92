"""Issue 18's pre-LN transformer block (examples/transformer_block), PyTorch beside ours.

  python3 tools/device/bench_transformer.py --ours MODE=FILE.json ... [--reps 20]

MODE is strict, tf32 or accurate, optionally with "-eager" (ours op by op) : each FILE is
`transformer_block bench TransformerBlock --shape full --configs tuned --json FILE
--precision MODE [--eager]`. PyTorch runs the same block (same parameter names and
init rule) with plain attention (matmul, scale, softmax, matmul) and with
F.scaled_dot_product_attention, eager and torch.compile, in float32 with TF32 off
(strict) and on (tf32), timed exactly as bench_pytorch.py times the seed models (CUDA
events, L2 flushed before every repetition, median). Batch 8, sequence 1024, width 1024,
16 heads, MLP 4096.

--causal times the decoder form instead: ours is CausalTransformerBlock (each FILE then
from `transformer_block bench CausalTransformerBlock ...`), PyTorch's plain attention
masks the scaled scores the GPT-2 way (masked_fill(tril(ones(t, t)) == 0, -inf), the
tril built in the forward) and its SDPA variant passes is_causal=True.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import ours_by_mode, time_ms  # noqa: E402


class TransformerBlock(nn.Module):
    def __init__(self, width=1024, heads=16, hidden=4096, sdpa=False, causal=False):
        super().__init__()
        self.heads, self.sdpa, self.causal = heads, sdpa, causal
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)

    def forward(self, x):
        b, t, d = x.shape
        e = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (p.reshape(b, t, self.heads, e).transpose(1, 2) for p in (q, k, v))
        if self.sdpa:
            a = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        else:
            s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(e)
            if self.causal:
                mask = torch.tril(torch.ones(t, t, device=x.device))
                s = s.masked_fill(mask == 0, float("-inf"))
            a = torch.matmul(torch.softmax(s, dim=-1), v)
        h = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ours", nargs="*", default=[], help="MODE=FILE.json")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--causal", action="store_true",
                    help="the decoder form (ours: CausalTransformerBlock)")
    args = ap.parse_args()
    name = "CausalTransformerBlock" if args.causal else "TransformerBlock"
    ours = {mode: o.get(name, {}).get("median_ms")
            for mode, o in ours_by_mode(args.ours, ap).items()}
    print(f"Device: {torch.cuda.get_device_name()}, torch {torch.__version__}; medians of "
          "CUDA-event timings, L2 flushed before each repetition; batch 8 x 1024 tokens, "
          f"width 1024, 16 heads, MLP 4096{', causal attention' if args.causal else ''}.\n")
    x = torch.rand(8, 1024, 1024, device="cuda")
    rows = []
    for mode in ("strict", "tf32"):
        torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
        torch.backends.cudnn.allow_tf32 = mode == "tf32"
        t = {}
        for sdpa in (False, True):
            torch.manual_seed(0)
            m = TransformerBlock(sdpa=sdpa, causal=args.causal).cuda().eval()
            with torch.no_grad():
                t[("eager", sdpa)] = time_ms(lambda: m(x), reps=args.reps)[0]
                c = torch.compile(m)
                t[("compile", sdpa)] = time_ms(lambda: c(x), reps=args.reps)[0]
        rows.append((mode, t))
    print("| mode | ours compiled ms | ours eager ms | PyTorch eager | torch.compile | eager SDPA "
          "| compile SDPA | ours / best torch.compile |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, t in rows:
        best = min(t[("compile", False)], t[("compile", True)])
        mine = ours.get(mode)
        eager = ours.get(mode + "-eager")
        fmt = lambda v: f"{v:.3f}" if v else "-"  # noqa: E731
        print(f"| {mode} | {fmt(mine)} | {fmt(eager)} | {t[('eager', False)]:.3f} | "
              f"{t[('compile', False)]:.3f} | {t[('eager', True)]:.3f} | "
              f"{t[('compile', True)]:.3f} | {(mine / best if mine else float('nan')):.3f} |")
    if ours.get("accurate"):
        print(f"| accurate | {ours['accurate']:.3f} | {fmt(ours.get('accurate-eager'))} | - | - | - "
              "| - | - |")


if __name__ == "__main__":
    main()
