// `--device all` for tune, bench, compare and check: one worker process per CUDA
// device, all at once. Each worker is this same program re-run with the same
// arguments but `--device cuda:i`, so it does exactly what the one-device command
// does, and its output lines carry "[cuda:i] ". Tuning results land in the one
// database through its lock and merge, each under its device's identity (devices of
// the same model share one: the identity is the chip, not the slot). The first worker
// that fails stops the others; its exit code is the command's.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tools/tt/command.h"

namespace tt::cli {

// When `device` is "all": runs the workers, waits for them, and returns true (a failure
// throws CLI::RuntimeError with the worker's code). Otherwise returns false and the
// command runs as usual. Without a CUDA device: a sentence and exit code 2.
bool run_on_every_device(const std::string& command, const std::string& device);

// The callback of tune, bench, compare and check: `--device all` runs the workers;
// otherwise opt->device_typed says whether --device was typed and run(*opt) runs the
// command on the one device.
template <typename Options, typename Run>
void set_device_callback(CLI::App* cmd, const std::string& command, std::shared_ptr<Options> opt,
                         Run run) {
  cmd->callback([cmd, command, opt, run] {
    if (run_on_every_device(command, opt->device)) return;  // --device all
    opt->device_typed = typed(cmd, "--device");
    run(*opt);
  });
}

// `argv` with the value of --device (given as "--device all" or "--device=all")
// replaced by "cuda:<device>".
std::vector<std::string> argv_for_device(const std::vector<std::string>& argv, int device);

}  // namespace tt::cli
