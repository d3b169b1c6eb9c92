// `tt check FILE...`: runs golden fixtures (PyTorch safetensors files, see
// tests/data/README.md) and prints one line per file with the relative L2 errors and
// PASS/FAIL. A file that cannot be checked is reported and the others still run; the
// exit code is 0 only when every file passes.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "models/fixture_check.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"

namespace tt::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> files;
  std::string device = "cpu";
  double tolerance = models::kFixtureTolerance;
  bool device_typed = false;
};

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string result_line(const models::FixtureResult& r, size_t name_width) {
  std::string line = fmt::format("{:<{}}  {:<22}  {:<20}  out {:.2e}", file_name(r.path),
                                 name_width, r.model, r.shape, r.out_error);
  for (const auto& [buffer, err] : r.buffer_errors) line += fmt::format("  {} {:.2e}", buffer, err);
  return line + (r.pass ? "  PASS" : "  FAIL");
}

void check_files(const CheckOptions& opt) {
  const Device device = resolve_device(opt.device, "check", opt.device_typed);
  size_t name_width = 0;
  for (const std::string& f : opt.files) name_width = std::max(name_width, file_name(f).size());

  int passed = 0;
  for (const std::string& path : opt.files) {
    try {
      const models::FixtureResult r = models::check_fixture(path, device, opt.tolerance);
      std::cout << result_line(r, name_width) << std::endl;
      passed += r.pass;
    } catch (const std::exception& e) {
      std::cout << "ERROR " << file_name(path) << ": " << e.what() << std::endl;
    }
  }
  const int total = static_cast<int>(opt.files.size());
  std::cout << fmt::format("{} of {} fixture{} passed on {} (relative L2 error <= {:.0e})\n",
                           passed, total, total == 1 ? "" : "s", device.str(), opt.tolerance);
  if (passed != total) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto opt = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check models against golden PyTorch fixtures (.safetensors files)");
  cmd->footer(
      "Each fixture names its model, constructor arguments and mode, and holds the parameters, "
      "the inputs and PyTorch's float64 output (and, for training-mode batch norm, the running "
      "statistics after the forward). A file passes when every relative L2 error "
      "||out - ref|| / ||ref|| is at most the tolerance. Exit code 0 only if every file passes.");
  cmd->add_option("files", opt->files, "Fixture files (.safetensors)")->required();
  cmd->add_option("--device", opt->device, "Device: cpu, cuda or cuda:N")->capture_default_str();
  add_positive_option(cmd, "--tolerance", &opt->tolerance, "Largest relative L2 error that passes");
  cmd->callback([opt, cmd] {
    opt->device_typed = typed(cmd, "--device");
    check_files(*opt);
  });
}

}  // namespace tt::cli
