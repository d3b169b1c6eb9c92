// `tt check FILE...`: runs golden fixtures (PyTorch safetensors files, see
// tests/data/README.md) and prints one line per file with the relative L2 errors and
// PASS/FAIL. A file that cannot be checked is reported and the others still run; the
// exit code is 0 only when every file passes. --precision runs the forwards in that
// mode and holds them to its tolerance (autotune/tolerance.h): 2^-9 for tf32, the
// strict bound (1e-5) otherwise, unless --tolerance says.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "autotune/tolerance.h"
#include "models/fixture_check.h"
#include "tools/tt/command.h"
#include "tools/tt/device_all.h"
#include "tools/tt/device_arg.h"

namespace tt::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> files;
  std::string device = "cpu";
  double tolerance = models::kFixtureTolerance;
  std::string precision = "strict";
  bool compile = true;
  bool device_typed = false;
  bool tolerance_typed = false;
};

// The fixtures' bound in a precision mode: SEED_MODELS.md's 1e-5 for strict and
// accurate (float32 accuracy), the tf32 bound of autotune/tolerance.h for tf32.
double fixture_tolerance(Precision p) {
  return p == Precision::tf32 ? autotune::verification_tolerance("tf32", 1)
                              : models::kFixtureTolerance;
}

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
  const Precision precision = parse_precision(opt.precision);
  note_cpu_precision("check", precision, device);
  PrecisionGuard precision_scope(precision);
  const double tolerance = opt.tolerance_typed ? opt.tolerance : fixture_tolerance(precision);
  size_t name_width = 0;
  for (const std::string& f : opt.files) name_width = std::max(name_width, file_name(f).size());

  int passed = 0;
  for (const std::string& path : opt.files) {
    try {
      const models::FixtureResult r = models::check_fixture(path, device, tolerance, opt.compile);
      std::cout << result_line(r, name_width) << std::endl;
      passed += r.pass;
    } catch (const std::exception& e) {
      // Results on stdout, failures to check on stderr (as every tt error).
      std::cout.flush();
      std::cerr << "error: " << file_name(path) << ": " << e.what() << std::endl;
    }
  }
  const int total = static_cast<int>(opt.files.size());
  std::cout << fmt::format("{} of {} fixture{} passed on {}{} (relative L2 error <= {:.0e})\n",
                           passed, total, total == 1 ? "" : "s", device.str(),
                           precision == Precision::strict
                               ? ""
                               : fmt::format(" in {} precision", precision_name(precision)),
                           tolerance);
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
  cmd->add_option("--device", opt->device,
                  "Device: cpu, cuda, cuda:N, or all (one worker per GPU at once)")
      ->capture_default_str();
  add_positive_option(cmd, "--tolerance", &opt->tolerance,
                      "Largest relative L2 error that passes (default: 1e-5; 2^-9 with "
                      "--precision tf32)")
      ->default_str("");
  add_precision_option(cmd, &opt->precision,
                       "the fixtures are held to that mode's bound; the CPU computes float32 in "
                       "every mode");
  add_compile_flag(cmd, &opt->compile, "On a GPU, check");
  set_device_callback(cmd, "check", opt, [cmd](CheckOptions& o) {
    o.tolerance_typed = typed(cmd, "--tolerance");
    check_files(o);
  });
}

}  // namespace tt::cli
