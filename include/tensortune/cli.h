// The `tt` command line as a library (CMake target tensortune::cli). A program that
// registers models of its own (models/registry.h, TT_REGISTER_MODEL) and calls
// tt::cli::main from its main() gets every `tt` command for them:
//
//   #include <tensortune/cli.h>
//   int main(int argc, char** argv) { return tt::cli::main(argc, argv); }
//
// examples/custom_model is such a program.
#pragma once

namespace tt::cli {

// Parses argv as `tt` does and runs the command. Never throws. Returns the exit code:
// 0 success, 1 a failed check or bad input, 2 a usage error, 3 no CUDA device.
int main(int argc, char** argv);

}  // namespace tt::cli
