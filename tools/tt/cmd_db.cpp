// `tt db`: look at and maintain tuning databases (autotune/database.h).
//   tt db show [--db PATH] [--device SUBSTRING]   a table per device: kernel, problem,
//                                                 config, median, default, speedup, ...
//   tt db merge A B -o OUT                        OUT = A then B (B wins on conflicts)
//   tt db prune --device NAME [--db PATH]         drop every entry of one device
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "autotune/database.h"
#include "autotune/lookup.h"
#include "core/error.h"
#include "core/file_util.h"
#include "tools/tt/command.h"

namespace tt::cli {
namespace {

using autotune::Database;
using autotune::TuningEntry;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains_ignoring_case(const std::string& text, const std::string& part) {
  return lower(text).find(lower(part)) != std::string::npos;
}

std::string rejected_summary(const TuningEntry& e) {
  int64_t total = 0;
  std::string parts;
  for (const auto& [reason, count] : e.variants_rejected) {
    if (count == 0) continue;
    total += count;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", reason, count);
  }
  return total == 0 ? "0" : fmt::format("{} ({})", total, parts);
}

// Columns sized to their widest cell; numbers right-aligned.
void print_table(const std::vector<std::vector<std::string>>& rows,
                 const std::vector<bool>& right_aligned) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += "  ";
      line += right_aligned[i] ? fmt::format("{:>{}}", row[i], width[i])
                               : fmt::format("{:<{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

// Returns how many devices were shown.
int show_database(const Database& db, const std::string& device_filter) {
  int shown = 0;
  for (const auto& [key, record] : db.devices()) {
    if (!device_filter.empty() && !contains_ignoring_case(key, device_filter)) continue;
    ++shown;
    const auto& id = record.identity;
    std::cout << fmt::format("\n{}  ({}, {}, {} SMs, {:.1f} GiB)\n", key, id.name,
                             id.compute_capability(), id.sm_count,
                             static_cast<double>(id.memory_bytes) / (1 << 30));
    std::vector<std::vector<std::string>> rows = {{"kernel", "problem", "config", "median ms",
                                                   "default ms", "speedup", "tried", "rejected",
                                                   "tuned at"}};
    for (const auto& [kernel, entries] : record.kernels) {
      for (const auto& [problem, e] : entries) {
        rows.push_back({kernel, problem, e.config.str().empty() ? "(empty)" : e.config.str(),
                        fmt::format("{:.4f}", e.median_ms), fmt::format("{:.4f}", e.default_ms),
                        e.speedup() > 0 ? fmt::format("{:.2f}x", e.speedup()) : "-",
                        std::to_string(e.variants_tried), rejected_summary(e), e.tuned_at});
      }
    }
    if (rows.size() == 1) {
      std::cout << "  (no entries)\n";
      continue;
    }
    print_table(rows, {false, false, false, true, true, true, true, false, false});
  }
  return shown;
}

void run_show(const std::string& db_path, const std::string& device_filter) {
  std::vector<autotune::DatabaseSource> sources;
  if (!db_path.empty()) {
    sources.push_back({db_path, "--db"});
  } else {
    sources = autotune::database_sources();
  }
  bool failed = false;
  for (const auto& source : sources) {
    std::cout << fmt::format("== {} ({})", source.path, source.origin);
    if (!files::exists(source.path, "the tuning database")) {
      std::cout << ": does not exist\n";
      if (!db_path.empty()) TT_FAIL("the tuning database {} does not exist", db_path);
      continue;
    }
    Database db;
    try {
      db = autotune::load_database(source.path);
    } catch (const Error& e) {
      std::cout << "\n";
      // With one file, the error is the answer; with several, show the others too.
      if (!db_path.empty()) throw;
      std::cerr << "error: " << e.what() << "\n";
      failed = true;
      continue;
    }
    std::cout << fmt::format(": {} entries\n", db.entry_count());
    if (show_database(db, device_filter) == 0 && !device_filter.empty()) {
      std::cout << fmt::format("  (no device matches '{}')\n", device_filter);
    }
  }
  if (failed) throw CLI::RuntimeError(kExitFailure);
}

void run_merge(const std::string& a, const std::string& b, const std::string& out) {
  const Database merged = autotune::merge_database_files({a, b}, out);
  std::cout << fmt::format("wrote {} entries ({} devices) to {}\n", merged.entry_count(),
                           merged.devices().size(), out);
}

void run_prune(const std::string& device, std::string db_path) {
  if (db_path.empty()) db_path = autotune::user_cache_database_path();
  TT_CHECK(files::exists(db_path, "the tuning database"), "the tuning database {} does not exist",
           db_path);
  std::string key;
  size_t removed = 0;
  autotune::update_database(db_path, [&](Database& db) {
    key = db.find_device(device, db_path);
    removed = db.prune_device(key);
  });
  std::cout << fmt::format("removed {} entries of {} from {}\n", removed, key, db_path);
}

}  // namespace

void add_db_command(CLI::App& app) {
  CLI::App* db = app.add_subcommand("db", "Show, merge and prune tuning databases");
  db->require_subcommand(1);

  static std::string show_db, show_device;
  CLI::App* show = db->add_subcommand("show", "Print the entries of tuning databases as tables");
  show->add_option("--db", show_db, "A database file (default: every file the lookup reads)");
  show->add_option("--device", show_device,
                   "Only devices whose key contains this text (case-insensitive)");
  show->footer(
      fmt::format("Without --db: TT_TUNING_DB (if set), the user cache {} and the "
                  "databases shipped with tensortune, in lookup priority order.",
                  autotune::user_cache_database_path()));
  show->callback([] { run_show(show_db, show_device); });

  static std::string merge_a, merge_b, merge_out;
  CLI::App* merge = db->add_subcommand(
      "merge", "Merge two databases into OUT: A's entries, then B's (B wins on conflicts)");
  merge->add_option("A", merge_a, "First database")->required()->check(CLI::ExistingFile);
  merge->add_option("B", merge_b, "Second database, wins on conflicts")
      ->required()
      ->check(CLI::ExistingFile);
  merge
      ->add_option("-o,--output", merge_out,
                   "Output file; entries already in it are kept unless A or B has the same one; "
                   "written under its lock, atomically")
      ->required();
  merge->callback([] { run_merge(merge_a, merge_b, merge_out); });

  static std::string prune_device, prune_db;
  CLI::App* prune = db->add_subcommand("prune", "Remove every entry of one device");
  prune
      ->add_option("--device", prune_device,
                   "The device key, or text that matches exactly one key (case-insensitive)")
      ->required();
  prune->add_option("--db", prune_db, "The database file (default: the user cache)");
  prune->footer("The file is rewritten under its lock, atomically; other devices are kept.");
  prune->callback([] { run_prune(prune_device, prune_db); });
  db->footer(
      fmt::format("Tuning results are looked up in TT_TUNING_DB or --db, the user cache "
                  "{}, then the shipped databases; see `tt db show`.",
                  autotune::user_cache_database_path()));
}

}  // namespace tt::cli
