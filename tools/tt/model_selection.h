// What the GPU model commands (compare, bench, tune) share: the `MODEL|--all` and
// `--shape` arguments, the models they select, and a --device that must be CUDA.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/device.h"
#include "models/registry.h"

namespace tt::cli {

// The options of a command that takes MODEL|--all and --shape (the commands' option
// structs derive from it and set the default shape).
struct ModelSelection {
  std::string model;
  bool all = false;
  std::string shape = "full";
};

// Adds the positional MODEL, --all (with `all_help`) and --shape small|full.
void add_model_selection(CLI::App* cmd, ModelSelection* selection, const std::string& all_help);

// Every registered model for --all, else the one named; "<command>: give either a
// model name or --all" when both or neither are given.
std::vector<const models::ModelInfo*> selected_models(const std::string& command,
                                                      const ModelSelection& selection);

// resolve_device(), and a tt::Error unless the device is a CUDA device.
Device resolve_gpu(const std::string& command, const std::string& device_text, bool typed);

// --db PATH for commands that read databases: a path that does not exist is an error
// (tt::Error naming it), not a silent fall-back to the other databases.
void use_database(const std::string& command, const std::string& db_path);

}  // namespace tt::cli
