// The MLP block as a `tt` of its own: registered beside the seed models, so every
// command works for it (`./mlp_block run MLPBlock --device cuda`, `compare`, `tune`,
// `bench`); the full shape is issue 9's (batch 8192, 1024 -> 4096 -> 1024).
#include <tensortune/cli.h>

#include <algorithm>

#include "mlp_block.h"

using tt::models::ArgKind;

TT_REGISTER_MODEL(tt::models::ModelSpec("MLPBlock")
                      .describe("norm(fc2(gelu(fc1(x)))), fc1: width -> hidden, fc2: back")
                      .arg("width", ArgKind::Int)
                      .arg("hidden", ArgKind::Int)
                      .input("x")
                      .small("[64, 256]", {{16, 64}})
                      .full("[1024, 4096]", {{8192, 1024}})
                      .construct<examples::MLPBlock, int64_t, int64_t>()
                      // The GEMMs' K is width or hidden; the norm averages width values.
                      .reduction([](const tt::models::ModelArgs& a, const auto&) {
                        return std::max(a.integer(0), a.integer(1));
                      }));

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
