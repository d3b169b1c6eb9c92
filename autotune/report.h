// The sweep report of `tt tune --report DIR`: every measurement as CSV and one SVG
// chart per (kernel, problem).
//
// CSV (RFC 4180: fields holding a comma, quote or newline are quoted, quotes doubled),
// one header line then one line per config:
//   kernel,problem,config,status,median_ms,p10_ms,p90_ms,rel_err,reason,reps,role,
//   speedup_vs_default,<one column per parameter>
// The parameter columns (the union of every config's names, in order of first
// appearance) hold each config's values, so a spreadsheet can sort and pivot on them;
// a config without that parameter leaves it empty. Untimed / unverified numbers are
// empty; role is "default", "winner", "default+winner" or ""; speedup_vs_default is
// the default's median / this median, for timed configs of a (kernel, problem) whose
// default was timed. parse_measurements_csv() reads it back (the config column is
// the source of truth; the parameter columns are checked against it).
//
// SVG: what was timed in the title; one row per config, timed configs sorted fastest
// first, each a dot at its median with a p10-p90 whisker on a time axis that spans
// the measured range (it does not start at zero, so small differences show), its
// median and its speedup against the default written beside it; the winner's dot is
// green and labelled "best", the default's is ringed and labelled "default"; the floor
// (the least time the work can take, where the caller knows it) as a dashed line;
// rejected and skipped configs listed below in grey with their status. Written by
// hand: <circle>, <line>, <rect> and <text> elements, no library.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autotune/measurement.h"

namespace tt::autotune {

std::string measurements_csv(const std::vector<Measurement>& rows);
// Throws tt::Error naming the line of anything malformed.
std::vector<Measurement> parse_measurements_csv(const std::string& text);

struct ChartInfo {
  std::string title;      // what was timed, first line of the chart
  std::string subtitle;   // how: device, method (a default is written when empty)
  double floor_ms = NAN;  // the least time the work can take; NaN: unknown
};

// `rows` of one (kernel, problem).
std::string measurements_svg(const std::vector<Measurement>& rows, const ChartInfo& info);

// "linear__m_1024_n_8192_k_8192_align_16B_precision_strict": a file name stem
// (letters, digits, '.', '_' and '-' only) for a kernel and problem.
std::string report_file_stem(const std::string& kernel, const std::string& problem);

// What the caller knows about the measurements beyond them: per (kernel, problem),
// what one timed run was (e.g. "one GemmBiasReLU forward (full shape)") and its floor;
// the device for every chart.
struct ReportContext {
  std::string device;
  std::map<std::pair<std::string, std::string>, std::string> timed;
  std::map<std::pair<std::string, std::string>, double> floor_ms;
};

// Creates `dir`, writes measurements.csv and one <stem>.svg per (kernel, problem) of
// `rows` (grouped in order of first appearance); returns the paths written. Throws
// tt::Error when a file cannot be written.
std::vector<std::string> write_report(const std::string& dir, const std::vector<Measurement>& rows,
                                      const ReportContext& context = {});

}  // namespace tt::autotune
