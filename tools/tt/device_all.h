// `--device all` for tune, bench, compare and check: one worker process per CUDA
// device, all at once. Each worker is this same program re-run with the same
// arguments but `--device cuda:i`, so it does exactly what the one-device command
// does, and its output lines carry "[cuda:i] ". Tuning results land in the one
// database through its lock and merge, each under its device's identity (devices of
// the same model share one: the identity is the chip, not the slot). The first worker
// that fails stops the others; its exit code is the command's.
#pragma once

#include <string>
#include <vector>

namespace tt::cli {

// When `device` is "all": runs the workers, waits for them, and returns true (a failure
// throws CLI::RuntimeError with the worker's code). Otherwise returns false and the
// command runs as usual. Without a CUDA device: a sentence and exit code 2.
bool run_on_every_device(const std::string& command, const std::string& device);

// `argv` with the value of --device (given as "--device all" or "--device=all")
// replaced by "cuda:<device>".
std::vector<std::string> argv_for_device(const std::vector<std::string>& argv, int device);

}  // namespace tt::cli
