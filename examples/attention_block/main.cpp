// The single-head attention block as a `tt` of its own: registered beside the seed
// models, so every command works for it (`./attention_block run AttentionBlock
// --device cuda`, `compare`, `tune`, `bench`); the full shape is issue 9's (batch 64,
// sequence 512, width 512).
#include <tensortune/cli.h>

#include <algorithm>

#include "attention_block.h"

using tt::models::ArgKind;

TT_REGISTER_MODEL(tt::models::ModelSpec("AttentionBlock")
                      .describe("softmax(q k^T / sqrt(width)) v, q/k/v = Linear(width, width)(x)")
                      .arg("width", ArgKind::Int)
                      .input("x")
                      .small("[64]", {{4, 32, 64}})
                      .full("[512]", {{64, 512, 512}})
                      .construct<examples::AttentionBlock, int64_t>()
                      // q k^T reduces over width, attn v over the sequence.
                      .reduction([](const tt::models::ModelArgs& a, const auto& shapes) {
                        return std::max(a.integer(0), shapes.at(0).at(1));
                      }));

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
