// The sweep report of `tt tune --report DIR`: every measurement as CSV and one SVG bar
// chart per (kernel, problem).
//
// CSV (RFC 4180: fields holding a comma, quote or newline are quoted, quotes doubled),
// one header line then one line per config:
//   kernel,problem,config,status,median_ms,p10_ms,p90_ms,rel_err,reason,reps,role
// Untimed / unverified numbers are empty; role is "default", "winner",
// "default+winner" or "". parse_measurements_csv() reads it back.
//
// SVG: a horizontal bar per config (exactly one <rect> each, in the order given) whose
// length is its median time; rejected and skipped configs get a short grey stub
// labelled with their status; the winner's bar is green and labelled "best", the
// default's is outlined and labelled "default". Written by hand: a few <rect>, <line>
// and <text> elements, no library.
#pragma once

#include <string>
#include <vector>

#include "autotune/measurement.h"

namespace tt::autotune {

std::string measurements_csv(const std::vector<Measurement>& rows);
// Throws tt::Error naming the line of anything malformed.
std::vector<Measurement> parse_measurements_csv(const std::string& text);

// `rows` of one (kernel, problem); `title` heads the chart.
std::string measurements_svg(const std::vector<Measurement>& rows, const std::string& title);

// "gemm_bias_relu__m_1024_n_8192_k_8192_align_16B_precision_strict": a file name stem
// (letters, digits, '.', '_' and '-' only) for a kernel and problem.
std::string report_file_stem(const std::string& kernel, const std::string& problem);

// Creates `dir`, writes measurements.csv and one <stem>.svg per (kernel, problem) of
// `rows` (grouped in order of first appearance); returns the paths written. Throws
// tt::Error when a file cannot be written.
std::vector<std::string> write_report(const std::string& dir, const std::vector<Measurement>& rows);

}  // namespace tt::autotune
