#include "tools/tt/model_selection.h"

#include <fmt/format.h>

#include <filesystem>

#include "autotune/lookup.h"
#include "core/error.h"
#include "tools/tt/device_arg.h"

namespace tt::cli {

void add_model_selection(CLI::App* cmd, ModelSelection* selection, const std::string& all_help) {
  cmd->add_option("model", selection->model, "Model name, as listed by `tt models`");
  cmd->add_flag("--all", selection->all, all_help);
  cmd->add_option("--shape", selection->shape, "Problem size: small or full (KernelBench)")
      ->check(CLI::IsMember({"small", "full"}))
      ->capture_default_str();
}

std::vector<const models::ModelInfo*> selected_models(const std::string& command,
                                                      const ModelSelection& selection) {
  const std::string& model = selection.model;
  const bool all = selection.all;
  // A usage error (exit 2, "tt CMD: ...; see tt CMD --help."): parse() reports it.
  (void)command;
  if (all && !model.empty())
    throw CLI::ValidationError(
        fmt::format("give a model name or --all, not both ('{}' and --all)", model));
  if (!all && model.empty()) throw CLI::ValidationError("give a model name or --all");
  std::vector<const models::ModelInfo*> selected;
  if (all) {
    for (const auto& info : models::registered_models()) selected.push_back(&info);
  } else {
    selected.push_back(&models::find_model(model));
  }
  return selected;
}

Device resolve_gpu(const std::string& command, const std::string& device_text, bool typed) {
  const Device gpu = resolve_device(device_text, command, typed);
  TT_CHECK(gpu.is_cuda(), "{}: --device must be a CUDA device, got '{}'", command, device_text);
  return gpu;
}

void use_database(const std::string& command, const std::string& db_path) {
  if (db_path.empty()) return;
  std::error_code ec;
  TT_CHECK(std::filesystem::is_regular_file(db_path, ec),
           "{}: the tuning database '{}' given with --db does not exist or is not a file", command,
           db_path);
  autotune::set_database_path(db_path);
}

}  // namespace tt::cli
