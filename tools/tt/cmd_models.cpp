// `tt models`: lists the registered seed models with their constructor arguments and
// the small and full problem sizes that `tt run --shape` uses.
#include <iostream>
#include <string>

#include "models/registry.h"
#include "tools/tt/command.h"

namespace tt::cli {
namespace {

std::string signature(const models::ModelInfo& info) {
  std::string args;
  for (const models::ArgSpec& a : info.args) {
    if (!args.empty()) args += ", ";
    args += a.name + ": " + models::arg_kind_name(a.kind);
    if (!a.default_json.empty()) args += " = " + a.default_json;
  }
  return info.name + "(" + args + ")";
}

std::string preset_line(const models::ModelInfo& info, const models::ShapePreset& preset) {
  std::string inputs;
  for (size_t i = 0; i < preset.input_shapes.size(); ++i) {
    if (i) inputs += ", ";
    inputs += info.input_names.at(i) + shape_str(preset.input_shapes[i]);
  }
  return "init " + preset.init + "; inputs " + inputs;
}

}  // namespace

void add_models_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "models", "List the registered models, their constructor arguments and shapes");
  cmd->footer(
      "Each model is shown as NAME(argument: type = default, ...), with the forward it "
      "computes and two problem sizes: 'small' (quick, the size of the golden fixtures) and "
      "'full' (the KernelBench shapes). `tt run MODEL --shape small|full` runs one.");
  auto names_only = std::make_shared<bool>(false);
  cmd->add_flag("--names", *names_only, "Print only the model names, one per line");
  cmd->callback([names_only] {
    for (const models::ModelInfo& info : models::registered_models()) {
      if (*names_only) {
        std::cout << info.name << "\n";
        continue;
      }
      std::cout << signature(info) << "\n"
                << "  forward: " << info.forward << "\n"
                << "  small:   " << preset_line(info, info.small) << "\n"
                << "  full:    " << preset_line(info, info.full) << "\n";
    }
  });
}

}  // namespace tt::cli
