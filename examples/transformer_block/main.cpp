// The pre-LN transformer block as a `tt` of its own: registered beside the seed models,
// so every command works for it (`./transformer_block compile TransformerBlock --device
// cuda --explain`, `bench` (compiled; `--eager` op by op), `run`, `compare`, `tune`), and its
// causal form as CausalTransformerBlock. The full shape is issue 18's: batch 8, sequence
// 1024, width 1024, 16 heads, MLP 4096.
#include <tensortune/cli.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "transformer_block.h"

using tt::models::ArgKind;

namespace {

// LayerNorm and qkv reduce over width, fc2 over hidden, p v over t.
int64_t reduction(const tt::models::ModelArgs& a, const std::vector<tt::Shape>& shapes) {
  return std::max({a.integer(0), a.integer(2), shapes.at(0).at(1)});
}

// The six matrix products (qkv, q k^T, p v, proj, fc1, fc2); causal: half of q k^T and p v.
double flops(const tt::models::ModelArgs& a, const std::vector<tt::Shape>& shapes, bool causal) {
  const double rows =
      static_cast<double>(shapes.at(0).at(0)) * static_cast<double>(shapes.at(0).at(1));
  const double d = static_cast<double>(a.integer(0));
  const double h = static_cast<double>(a.integer(2));
  const double t = static_cast<double>(shapes.at(0).at(1));
  return 2 * rows * (4 * d * d + 2 * d * h) + (causal ? 2 : 4) * rows * t * d;
}

tt::models::ModelSpec block_spec(const char* name, const char* forward, bool causal) {
  return tt::models::ModelSpec(name)
      .describe(forward)
      .arg("width", ArgKind::Int)
      .arg("heads", ArgKind::Int)
      .arg("hidden", ArgKind::Int)
      .input("x")
      .small("[64, 4, 256]", {{2, 16, 64}})
      .full("[1024, 16, 4096]", {{8, 1024, 1024}})
      .factory(
          [causal](const tt::models::ModelArgs& a, uint64_t seed) -> std::shared_ptr<tt::Module> {
            return std::make_shared<examples::TransformerBlock>(a.integer(0), a.integer(1),
                                                                a.integer(2), seed, causal);
          })
      .reduction(reduction)
      .flops([causal](const tt::models::ModelArgs& a, const std::vector<tt::Shape>& shapes) {
        return flops(a, shapes, causal);
      });
}

}  // namespace

TT_REGISTER_MODEL(
    block_spec("TransformerBlock",
               "pre-LN block: x + proj(attn(ln1(x))), then x + fc2(gelu(fc1(ln2(x))))", false));
// The decoder form (GPT-2's masked_fill of a tril built in the forward), timed against
// PyTorch's by tools/device/bench_transformer.py --causal.
TT_REGISTER_MODEL(block_spec("CausalTransformerBlock",
                             "TransformerBlock with causal attention: softmax(masked_fill(q k^T "
                             "/ sqrt(e), tril(ones(t, t)) == 0, -inf)) v",
                             true));

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
