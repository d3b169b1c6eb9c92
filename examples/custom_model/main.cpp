// A `tt` of one's own: the SwishMlp model registered beside the seed models, and every
// `tt` command (run, compare, tune, bench, ...) for it. Try `./custom_model run SwishMlp`.
#include <tensortune/cli.h>

#include <algorithm>

#include "swish_mlp.h"

using tt::models::ArgKind;

TT_REGISTER_MODEL(tt::models::ModelSpec("SwishMlp")
                      .describe("fc2(GroupNorm(groups, hidden)(swish(fc1(x))))")
                      .arg("in", ArgKind::Int)
                      .arg("hidden", ArgKind::Int)
                      .arg("out", ArgKind::Int)
                      .arg("groups", ArgKind::Int, "4")
                      .input("x")
                      .small("[32, 64, 16]", {{8, 32}})
                      .full("[1024, 4096, 1024, 32]", {{8192, 1024}})
                      .construct<SwishMlp, int64_t, int64_t, int64_t, int64_t>()
                      // For `tt tune`'s tolerance: the GEMMs' K is in or hidden.
                      .reduction([](const tt::models::ModelArgs& a, const auto&) {
                        return std::max(a.integer(0), a.integer(1));
                      }));

int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
