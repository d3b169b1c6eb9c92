// The --device option of the model commands (run, check): parses "cpu", "cuda" or
// "cuda:N" and makes sure the device exists before any work starts, so that a
// missing GPU is one clear message with exit code kExitNoGpu rather than a failure
// deep inside an op.
#pragma once

#include <string>

#include "core/device.h"

namespace tt::cli {

// Throws tt::Error for text that is not a device, and CLI::RuntimeError(kExitNoGpu),
// after printing why to stderr, for a CUDA device this build or machine lacks.
Device resolve_device(const std::string& text);

}  // namespace tt::cli
