// The pre-LN transformer block as a `tt` of its own: registered beside the seed models,
// so every command works for it (`./transformer_block compile TransformerBlock --device
// cuda --explain`, `bench` (compiled; `--eager` op by op), `run`, `compare`, `tune`). The full
// shape is issue 18's: batch 8, sequence 1024, width 1024, 16 heads, MLP 4096.
#include <tensortune/cli.h>

#include <algorithm>

#include "transformer_block.h"

using tt::models::ArgKind;

TT_REGISTER_MODEL(
    tt::models::ModelSpec("TransformerBlock")
        .describe("pre-LN block: x + proj(attn(ln1(x))), then x + fc2(gelu(fc1(ln2(x))))")
        .arg("width", ArgKind::Int)
        .arg("heads", ArgKind::Int)
        .arg("hidden", ArgKind::Int)
        .input("x")
        .small("[64, 4, 256]", {{2, 16, 64}})
        .full("[1024, 16, 4096]", {{8, 1024, 1024}})
        .construct<examples::TransformerBlock, int64_t, int64_t, int64_t>()
        // LayerNorm and qkv reduce over width, fc2 over hidden, p v over t.
        .reduction([](const tt::models::ModelArgs& a, const auto& shapes) {
          return std::max({a.integer(0), a.integer(2), shapes.at(0).at(1)});
        })
        // The six matrix products (qkv, q k^T, p v, proj, fc1, fc2).
        .flops([](const tt::models::ModelArgs& a, const auto& shapes) {
          const double rows =
              static_cast<double>(shapes.at(0).at(0)) * static_cast<double>(shapes.at(0).at(1));
          const double d = static_cast<double>(a.integer(0));
          const double h = static_cast<double>(a.integer(2));
          const double t = static_cast<double>(shapes.at(0).at(1));
          return 2 * rows * (4 * d * d + 2 * d * h) + 4 * rows * t * d;
        }));

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
