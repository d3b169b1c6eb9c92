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

// What an entry's times measured: the recorded words with --wide, else a word. Entries
// from before the field was recorded were timed as one model forward too.
std::string timed(const TuningEntry& e, bool wide) {
  if (e.measured.empty()) return wide ? "one model forward (not recorded)" : "forward";
  if (wide) return e.measured;
  return e.measured.rfind("one forward", 0) == 0 ? "forward" : e.measured;
}

// The reader bounds each count (autotune/database_yaml.cpp), so the sums fit.
std::string rejected_total(const TuningEntry& e) {
  int64_t total = 0;
  for (const auto& [reason, count] : e.variants_rejected) total += count;
  return std::to_string(total);
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

// The default table fits a 120-column terminal; --wide prints every cell whole.
constexpr size_t kShowColumns = 120;

// `text` cut to `width` characters, its middle replaced by "..." (a problem key's and a
// config's ends tell entries apart).
std::string elided(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(0, width);
  const size_t head = (width - 3 + 1) / 2, tail = width - 3 - head;
  return text.substr(0, head) + "..." + text.substr(text.size() - tail);
}

// Cells padded to `width` (right-aligned where asked), two spaces before each; `indent`
// more spaces before the first.
std::string table_line(const std::vector<std::string>& row, const std::vector<size_t>& width,
                       const std::vector<bool>& right_aligned, size_t indent = 0) {
  std::string line(indent, ' ');
  for (size_t i = 0; i < row.size(); ++i) {
    const std::string cell = elided(row[i], width[i]);
    line += "  ";
    line += right_aligned[i] ? fmt::format("{:>{}}", cell, width[i])
                             : fmt::format("{:<{}}", cell, width[i]);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::vector<size_t> column_widths(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  return width;
}

// --wide: one row per entry, every cell whole.
void print_table(const std::vector<std::vector<std::string>>& rows,
                 const std::vector<bool>& right_aligned) {
  const std::vector<size_t> width = column_widths(rows);
  for (const auto& row : rows) std::cout << table_line(row, width, right_aligned) << "\n";
}

// The default view, within kShowColumns: a heading per kernel, then per entry a line of
// its problem and numbers and an indented line with its config (shortened in the middle
// where it would not fit).
void print_compact(const autotune::DeviceRecord& record) {
  const std::vector<bool> right = {false, true, true, false, true, true, false};
  for (const auto& [kernel, entries] : record.kernels) {
    std::cout << "  " << elided(kernel, kShowColumns - 2) << "\n";
    std::vector<std::vector<std::string>> rows = {
        {"problem", "median ms", "speedup", "timed", "tried", "rejected", "tuned at"}};
    std::vector<std::string> configs = {""};
    for (const auto& [problem, e] : entries) {
      // Four significant digits: run-to-run noise is far above the fifth.
      rows.push_back({problem, fmt::format("{:.4g}", e.median_ms),
                      e.speedup() > 0 ? fmt::format("{:.2f}x", e.speedup()) : "-", timed(e, false),
                      std::to_string(e.variants_tried), rejected_total(e),
                      e.tuned_at.substr(0, 10)});
      configs.push_back(e.config.str().empty() ? "(empty)" : e.config.str());
    }
    std::vector<size_t> width = column_widths(rows);
    size_t others = 2;  // the indent
    for (size_t i = 1; i < width.size(); ++i) others += 2 + width[i];
    width[0] = std::min(width[0], kShowColumns - std::min(kShowColumns - 12, others + 2));
    for (size_t r = 0; r < rows.size(); ++r) {
      // A problem too long for its column gets a line of its own (shortened only past
      // the terminal's width): two keys that differ in the middle stay apart.
      if (r > 0 && rows[r][0].size() > width[0]) {
        std::cout << "    " << elided(rows[r][0], kShowColumns - 4) << "\n";
        rows[r][0].clear();
      }
      std::cout << table_line(rows[r], width, right, 2) << "\n";
      if (r > 0) std::cout << "        " << elided(configs[r], kShowColumns - 8) << "\n";
    }
  }
}

// Returns how many devices were shown.
int show_database(const Database& db, const std::string& device_filter, bool wide) {
  int shown = 0;
  for (const auto& [key, record] : db.devices()) {
    if (!device_filter.empty() && !contains_ignoring_case(key, device_filter)) continue;
    ++shown;
    const auto& id = record.identity;
    std::cout << fmt::format("\n{}  ({}, {}, {} SMs, {:.1f} GiB)\n", key, id.name,
                             id.compute_capability(), id.sm_count,
                             static_cast<double>(id.memory_bytes) / (1 << 30));
    if (record.kernels.empty()) {
      std::cout << "  (no entries)\n";
      continue;
    }
    if (!wide) {
      print_compact(record);
      // What the times are, since a stage's "median ms" reads like a whole forward's.
      std::cout << "  (timed \"forward\": one forward of the whole model with this kernel's "
                   "config forced,\n   as `tt tune` times every kernel; --wide says more)\n";
      continue;
    }
    std::vector<std::vector<std::string>> rows = {{"kernel", "problem", "config", "median ms",
                                                   "default ms", "timed", "speedup", "tried",
                                                   "rejected", "tuned at"}};
    for (const auto& [kernel, entries] : record.kernels) {
      for (const auto& [problem, e] : entries) {
        rows.push_back({kernel, problem, e.config.str().empty() ? "(empty)" : e.config.str(),
                        fmt::format("{:.4g}", e.median_ms), fmt::format("{:.4g}", e.default_ms),
                        timed(e, true), e.speedup() > 0 ? fmt::format("{:.2f}x", e.speedup()) : "-",
                        std::to_string(e.variants_tried), rejected_summary(e), e.tuned_at});
      }
    }
    print_table(rows, {false, false, false, true, true, false, true, true, false, false});
  }
  return shown;
}

void run_show(const std::string& db_path, const std::string& device_filter, bool wide) {
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
    if (show_database(db, device_filter, wide) == 0 && !device_filter.empty()) {
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
  add_db_option(show, &show_db, "A database file (default: every file the lookup reads)");
  show->add_option("--device", show_device,
                   "Only devices whose key contains this text (case-insensitive)");
  show->footer(
      fmt::format("Without --db: TT_TUNING_DB (if set), the user cache {} and the "
                  "databases shipped with tensortune, in lookup priority order.",
                  autotune::user_cache_database_path()));
  static bool show_wide = false;
  show->add_flag("--wide", show_wide,
                 "Every cell whole (the rejection reasons, the time of day); lines may be long");
  show->callback([] { run_show(show_db, show_device, show_wide); });

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
  add_db_option(prune, &prune_db, "The database file (default: the user cache)");
  prune->footer("The file is rewritten under its lock, atomically; other devices are kept.");
  prune->callback([] { run_prune(prune_device, prune_db); });
  db->footer(
      fmt::format("Tuning results are looked up in TT_TUNING_DB or --db, the user cache "
                  "{}, then the shipped databases; see `tt db show`.",
                  autotune::user_cache_database_path()));
}

}  // namespace tt::cli
