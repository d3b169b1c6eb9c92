"""PyTorch goldens for issue 20's done-when models and its indexing ops, in the format
of tools/device/make_example_goldens.py (safetensors; float32 parameters under
PyTorch's names; int64 token ids and masks; expected.out in float64, computed by the
same module in float64 from the same float32 values; expected.out_fp32 for reference).

  python3 tools/device/make_model_goldens.py [OUT_DIR]    (default: tests/data/examples)

writes
  tiny_gpt_small.safetensors       a GPT-2-style decoder: token and position
                                   nn.Embedding, causal attention through a bool mask
                                   (triu) and masked_fill, GELU(tanh) MLP, LayerNorm,
                                   tied-free LM head; input.0 = token ids [2, 8] int64
  bert_layer_small.safetensors     a BERT-style post-LN encoder layer with a padding
                                   mask: input.0 = x [2, 8, 32] float32, input.1 =
                                   attention_mask [2, 8] int64 (1 = token, 0 = padding)
  index_ops_small.safetensors      "<case>.in.<k>" inputs and "<case>.expected" for the
                                   indexing cases of tests/model_goldens_test.cpp

tests/model_goldens_test.cpp (with tests/support/tiny_models.h, the same modules in
C++ with libtorch names) reads them and skips, saying so, while they are absent. Needs
only torch. Run on the GPU machine, TF32 off; the float64 results do not depend on the
device.
"""
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_example_goldens import cases_golden, start  # noqa: E402
from make_example_goldens import save as save_tensors  # noqa: E402 (the same format)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def save(path, tensors, metadata):
    """make_example_goldens.save, with bool tensors stored as uint8 (0/1)."""
    save_tensors(path, {k: t.to(torch.uint8) if t.dtype == torch.bool else t
                        for k, t in tensors.items()}, metadata)


# ---------------------------------------------------------------- the decoder
class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.attn_dropout = nn.Dropout(0.1)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        hd = C // self.heads
        q = q.view(B, T, self.heads, hd).transpose(1, 2)
        k = k.view(B, T, self.heads, hd).transpose(1, 2)
        v = v.view(B, T, self.heads, hd).transpose(1, 2)
        att = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        att = att.masked_fill(causal, float("-inf")).softmax(-1)
        y = self.attn_dropout(att).matmul(v)
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):  # tests/support/tiny_models.h: TinyGPT
    def __init__(self, vocab=50, n_pos=16, d=32, heads=4, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d, padding_idx=0)
        self.wpe = nn.Embedding(n_pos, d)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


# ---------------------------------------------------------------- the encoder layer
class BertLayer(nn.Module):  # tests/support/tiny_models.h: BertLayer
    def __init__(self, d=32, heads=4, ffn=64):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.attn_out = nn.Linear(d, d)
        self.attn_norm = nn.LayerNorm(d, eps=1e-12)
        self.intermediate = nn.Linear(d, ffn)
        self.output = nn.Linear(ffn, d)
        self.out_norm = nn.LayerNorm(d, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, attention_mask):
        B, T, C = x.shape
        hd = C // self.heads

        def heads(t):
            return t.view(B, T, self.heads, hd).transpose(1, 2)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = q.matmul(k.transpose(-2, -1)) / math.sqrt(hd)
        padding = attention_mask.eq(0).view(B, 1, 1, T)
        probs = self.dropout(scores.masked_fill(padding, float("-inf")).softmax(-1))
        ctx = probs.matmul(v).transpose(1, 2).reshape(B, T, C)
        x = self.attn_norm(x + self.dropout(self.attn_out(ctx)))
        ff = self.output(F.gelu(self.intermediate(x)))
        return self.out_norm(x + self.dropout(ff))


def perturb_norms(module, g):
    """LayerNorm weights away from 1 and biases away from 0, so that the test sees them."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))


def model_golden(out_dir, file_name, model_name, module, init, inputs, dev):
    module = module.eval().to(dev)
    inputs = [t.to(dev) for t in inputs]
    with torch.no_grad():
        out32 = module(*inputs)
        out64 = module.double()(*[t.double() if t.is_floating_point() else t for t in inputs])
    tensors = {name: p.float() for name, p in module.state_dict().items()}
    for k, t in enumerate(inputs):
        tensors[f"input.{k}"] = t
    tensors["expected.out"] = out64
    tensors["expected.out_fp32"] = out32
    meta = {"model": model_name, "init": init, "inputs": str(len(inputs)), "mode": "eval",
            "torch": torch.__version__}
    save(os.path.join(out_dir, file_name), tensors, meta)


# ---------------------------------------------------------------- indexing ops
def index_cases(g):
    """(case name, inputs, fn): tests/model_goldens_test.cpp has one row per name."""
    r = lambda *s: torch.randn(*s, generator=g)
    ints = lambda hi, *s: torch.randint(0, hi, s, generator=g)
    return [
        ("index_select_0", [r(5, 6), torch.tensor([4, 0, 0, 2])],
         lambda x, i: torch.index_select(x, 0, i)),
        ("index_select_last", [r(3, 4, 6), torch.tensor([5, 1, 3])],
         lambda x, i: x.index_select(-1, i)),
        ("gather_1", [r(4, 6), ints(6, 4, 3)], lambda x, i: torch.gather(x, 1, i)),
        ("gather_0", [r(5, 3, 2), ints(5, 2, 3, 2)], lambda x, i: torch.gather(x, 0, i)),
        ("embedding", [r(10, 4), ints(10, 2, 5)], lambda w, i: F.embedding(i, w)),
        ("index_int_slice", [r(4, 6, 5)], lambda x: x[1, 1:5:2]),
        ("index_none_ellipsis", [r(4, 6, 5)], lambda x: x[None, ..., 2]),
        ("index_neg_slice", [r(4, 6, 5)], lambda x: x[:, -3:, ::3]),
        ("index_tensor", [r(4, 6, 5), torch.tensor([3, 0, 3])], lambda x, i: x[:, i]),
        ("index_bool", [r(4, 6, 5), (torch.rand(4, generator=g) > 0.4).to(torch.uint8)],
         lambda x, m: x[m.bool()]),
        ("operator_bracket", [r(4, 6)], lambda x: x[2]),
    ]


def main():
    out_dir, dev, g = start(20)

    gpt = TinyGPT()
    perturb_norms(gpt, g)
    idx = torch.randint(0, 50, (2, 8), generator=g)
    idx[0, 3] = 0  # the padding token (a zero row of wte) appears once
    model_golden(out_dir, "tiny_gpt_small.safetensors", "TinyGPT", gpt,
                 "vocab 50, n_pos 16, d 32, heads 4, layers 2", [idx], dev)

    bert = BertLayer()
    perturb_norms(bert, g)
    x = torch.randn(2, 8, 32, generator=g)
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[0, 6:] = 0
    mask[1, 3:] = 0
    model_golden(out_dir, "bert_layer_small.safetensors", "BertLayer", bert,
                 "d 32, heads 4, ffn 64", [x, mask], dev)

    cases_golden(os.path.join(out_dir, "index_ops_small.safetensors"), "index_ops",
                 index_cases(g), save)


if __name__ == "__main__":
    main()
