// The --device option of the model commands: parses "cpu", "cuda" or "cuda:N" and
// makes sure the device exists before any work starts, so that a missing GPU is one
// clear message with exit code kExitNoGpu rather than a failure deep inside an op.
#pragma once

#include <string>

#include "core/device.h"

namespace tt::cli {

// Throws tt::Error for text that is not a device, and CLI::RuntimeError(kExitNoGpu),
// after printing why to stderr, for a CUDA device this build or machine lacks. The
// message blames --device only when the user typed it (`typed`); otherwise it names
// the command ("tt bench needs a CUDA device ...").
Device resolve_device(const std::string& text, const std::string& command, bool typed);

}  // namespace tt::cli
