// `tt tune MODEL|--all`: runs the autotuner on the GPU (models/tune_model.h) for
// registered models, saves each winner with its provenance into a tuning database
// (default: the user cache that every later run reads), and prints a table per
// kernel: default and tuned time, speedup, variants tried and rejected. A progress
// line on stderr shows the kernel, the variant, the best so far and the time left;
// it is rewritten in place on a terminal and printed as plain lines otherwise.
// `--report DIR` writes every measurement as CSV and one SVG chart per kernel.
// `--precision` tunes the forwards in that mode (models/tune_model.h): its verification
// tolerance, and database entries under the problem keys of that mode (precision=X
// for the kernels whose key reads it).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "autotune/database.h"
#include "autotune/lookup.h"
#include "autotune/report.h"
#include "models/registry.h"
#include "models/tune_model.h"
#include "tools/tt/command.h"
#include "tools/tt/device_all.h"
#include "tools/tt/model_selection.h"
#include "tools/tt/table.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt::cli {
namespace {

// Share of the budget per model when --budget is not given: 5 models in 170 s, the
// deadline of `tt tune --all --shape full` (3 minutes, with room for start-up).
constexpr double kSecondsPerModel = 34.0;

struct TuneOptions : ModelSelection {
  std::string db_path;
  double budget_s = 0;  // 0: kSecondsPerModel per model
  std::string report_dir;
  uint64_t seed = 0;
  std::string device = "cuda";
  std::string precision = "strict";
  bool device_typed = false;
  bool compile = true;
};

class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(fileno(stderr)) != 0) {}
  ~ProgressLine() { finish(); }

  void update(const std::string& text) {
    if (tty_) {
      std::string shown = text.size() > 150 ? text.substr(0, 147) + "..." : text;
      std::cerr << "\r" << shown << "\x1b[K" << std::flush;
      open_ = true;
    } else {
      std::cerr << text << "\n";
    }
  }
  // Ends the in-place line so that the next output starts on a line of its own.
  void finish() {
    if (open_) std::cerr << "\r\x1b[K" << std::flush;
    open_ = false;
  }
  void message(const std::string& text) {
    finish();
    std::cerr << text << "\n";
  }

 private:
  bool tty_;
  bool open_ = false;
};

std::string ms(double v) { return v > 0 ? fmt::format("{:.4f}", v) : "-"; }

std::string rejected_count(const autotune::TuningEntry& e) {
  int64_t total = 0;
  for (const auto& [reason, count] : e.variants_rejected) total += count;
  return std::to_string(total);
}

void print_results(const std::vector<models::ModelTuneResult>& results) {
  for (const models::ModelTuneResult& r : results) {
    std::cout << fmt::format("\n{} ({} shape, {} precision, tolerance {:.2e}, {:.1f} s)\n", r.model,
                             r.shape, r.precision, r.tolerance, r.seconds);
    std::vector<std::vector<std::string>> rows = {
        {"kernel", "problem", "default ms", "tuned ms", "speedup", "tried", "rejected", "winner"}};
    for (const autotune::SweepResult& k : r.kernels) {
      const autotune::TuningEntry& e = k.entry;
      rows.push_back({k.kernel, k.problem, ms(e.default_ms), k.has_winner ? ms(e.median_ms) : "-",
                      k.has_winner && e.speedup() > 0 ? fmt::format("{:.3f}x", e.speedup()) : "-",
                      fmt::format("{}{}", e.variants_tried,
                                  k.sampled ? fmt::format(" of {}", k.space_size) : ""),
                      rejected_count(e),
                      k.has_winner
                          ? k.winner.str() + (k.choice.kept_default ? " (default kept)" : "")
                          : "none: " + k.error});
    }
    std::cout << format_table(rows, {false, false, true, true, true, true, true, false});
    for (const std::string& u : r.untuned) std::cout << "  not tuned (time budget): " << u << "\n";
    if (!r.error.empty()) std::cout << "  error: " << r.error << "\n";
  }
}

void run_tune(const TuneOptions& opt) {
  const std::vector<const models::ModelInfo*> selected = selected_models("tune", opt);
  [[maybe_unused]] const Device gpu = resolve_gpu("tune", opt.device, opt.device_typed);
  const std::string db_path =
      opt.db_path.empty() ? autotune::user_cache_database_path() : opt.db_path;
  const double budget =
      opt.budget_s > 0 ? opt.budget_s : kSecondsPerModel * static_cast<double>(selected.size());
  std::cout << fmt::format(
      "tuning {} model{} at the {} shape in {} precision on {} within {:.0f} s; saving to {}\n",
      selected.size(), selected.size() == 1 ? "" : "s", opt.shape, opt.precision, gpu.str(), budget,
      db_path);

  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ProgressLine progress;
  std::vector<models::ModelTuneResult> results;
  std::vector<autotune::Measurement> measurements;
  autotune::ReportContext report;
#if TT_CUDA
  report.device = cuda::device_info(gpu.index).name + " (" + gpu.str() + ")";
#endif
  size_t saved = 0;
  for (size_t i = 0; i < selected.size(); ++i) {
    models::TuneOptions mo;
    mo.shape = opt.shape;
    mo.seed = opt.seed;
    mo.device = gpu.index;
    mo.precision = opt.precision;
    mo.compile = opt.compile;
    // Each model gets an equal share of what is left, so a model that finishes
    // early leaves its time to the next ones.
    mo.budget_s = std::max(1.0, (budget - elapsed()) / static_cast<double>(selected.size() - i));
    mo.log = [&](const std::string& line) { progress.message(line); };
    mo.progress = [&](const std::string& model, const autotune::SweepProgress& p) {
      progress.update(fmt::format(
          "[{}] {} {} {}/{}  {}  best {}  {:.0f} s left", model, p.kernel, p.phase, p.index,
          p.total, p.config.str(),
          p.best_ms > 0 ? fmt::format("{:.4f} ms ({})", p.best_ms, p.best_config.str()) : "-",
          std::max(0.0, budget - elapsed())));
    };
    autotune::Database updates;
    models::ModelTuneResult r = models::tune_model(*selected[i], mo, updates);
    progress.finish();
    if (!updates.empty()) {
      autotune::save_database(db_path, updates);
      saved += updates.entry_count();
    }
    for (const autotune::SweepResult& k : r.kernels) {
      measurements.insert(measurements.end(), k.measurements.begin(), k.measurements.end());
      report.timed[{k.kernel, k.problem}] =
          fmt::format("one {} forward ({} shape)", r.model, opt.shape);
    }
    results.push_back(std::move(r));
  }
  autotune::reload_databases();
  print_results(results);
  std::cout << fmt::format("\nsaved {} entries to {} in {:.1f} s\n", saved, db_path, elapsed());
  if (!opt.report_dir.empty()) {
    const std::vector<std::string> files =
        autotune::write_report(opt.report_dir, measurements, report);
    std::cout << fmt::format("wrote {} measurements and {} charts to {}\n", measurements.size(),
                             files.size() - 1, opt.report_dir);
  }
  // A kernel without a verified config means even its default disagrees with the
  // reference: as much a failure as an error that stopped the model.
  int failed = 0;
  for (const models::ModelTuneResult& r : results) {
    bool ok = r.error.empty();
    for (const autotune::SweepResult& k : r.kernels) ok = ok && k.has_winner;
    failed += ok ? 0 : 1;
  }
  if (failed > 0) {
    std::cout << fmt::format("{} of {} models failed to tune\n", failed, results.size());
    throw CLI::RuntimeError(kExitFailure);
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto opt = std::make_shared<TuneOptions>();
  CLI::App* cmd =
      app.add_subcommand("tune", "Tune the CUDA kernels of registered models for this GPU");
  cmd->footer(
      "For each model: the CPU reference is computed once, then every tunable kernel the "
      "forward launches is swept: each config of its parameter space (or a seeded sample when "
      "the budget is short) is run and checked against the reference (configs that fail are "
      "rejected with the reason), timed with CUDA events (L2 flushed), and the contenders "
      "within 3% of the best are re-measured before the winner is chosen; the default is kept "
      "unless beaten beyond the noise. Winners are saved with their provenance to the "
      "database (--db, default: the user cache) that `tt run` and `tt bench` read. Exit codes: "
      "0 done, 1 a model failed, 3 no CUDA device.");
  add_model_selection(cmd, opt.get(), "Tune every registered model");
  add_db_option(
      cmd, &opt->db_path,
      fmt::format("Database to save into (default: {})", autotune::user_cache_database_path()));
  add_positive_option(cmd, "--budget", &opt->budget_s,
                      "Wall-clock seconds for the whole run (default: 34 per model, 170 for --all)")
      ->default_str("");
  cmd->add_option("--report", opt->report_dir,
                  "Write measurements.csv and one SVG chart per kernel into this directory");
  add_seed_option(cmd, &opt->seed, "Seed of the weights, inputs and sampling");
  cmd->add_option("--device", opt->device,
                  "CUDA device: cuda, cuda:N, or all (one worker per GPU at once)")
      ->capture_default_str();
  add_precision_option(cmd, &opt->precision,
                       "the kernels are tuned and verified in it (its tolerance) and saved under "
                       "that mode's problem keys");
  add_compile_flag(cmd, &opt->compile, "Tune the kernels of");
  set_device_callback(cmd, "tune", opt, run_tune);
}

}  // namespace tt::cli
