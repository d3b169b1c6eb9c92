// The sweep report: CSV that parses back to the same measurements (quoted configs
// and reasons) with one column per parameter and the speedup, malformed CSV named by
// line, one SVG dot per timed config sorted fastest first on an axis that does not
// start at zero, the best, the default and the floor marked, and the files
// write_report() produces.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autotune/report.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<Measurement> synthetic() {
  std::vector<Measurement> rows;
  const auto add = [&](const std::string& config, const char* status, double median, double rel_err,
                       const std::string& reason) {
    Measurement m;
    m.kernel = "gemm_bias_relu";
    m.problem = "m=1024,n=8192,k=8192,align=16B,precision=strict";
    m.config = Config::parse(config);
    m.status = status;
    m.median_ms = median;
    m.p10_ms = std::isnan(median) ? NAN : median * 0.99;
    m.p90_ms = std::isnan(median) ? NAN : median * 1.02;
    m.reps = std::isnan(median) ? 0 : 5;
    m.rel_err = rel_err;
    m.reason = reason;
    rows.push_back(m);
  };
  add("impl=cublaslt,algo=0", kStatusOk, 2.744, 3.1e-7, "");
  add("impl=cublaslt,algo=1", kStatusOk, 2.701, 2.9e-7, "");
  add("impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2", kStatusOk, 2.98, 4e-7, "");
  add("impl=cublaslt,algo=7", kStatusLaunchFailed, NAN, NAN,
      "cublaslt_gemm: algorithm index 7 is out of range, \"7 > 5\"");
  add("impl=own,bm=64,bn=64,bk=8,tm=8,tn=8,vec=1,stages=2", kStatusWrongResult, NAN, 3e-2,
      "relative L2 error 3.000e-02 of the output exceeds the tolerance 1.00e-05");
  rows[0].is_default = true;
  rows[1].is_winner = true;
  rows[1].remeasured = true;
  rows[1].reps = 20;
  Measurement other = rows[0];
  other.kernel = "gemm_instance_norm_add_mul.row_norm_add_mul";
  other.problem = "segments=1024,length=8192,align=16B,precision=strict";
  other.config = Config::parse("impl=block,threads=256,vec=4,items=8");
  other.is_winner = true;
  rows.push_back(other);
  return rows;
}

// The CSV keeps six significant digits (the digits that matter for a timing).
bool same_number(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 5e-6 * std::abs(b);
}

TEST(ReportCsv, RoundTrips) {
  const std::vector<Measurement> rows = synthetic();
  const std::string csv = measurements_csv(rows);
  EXPECT_THAT(csv, HasSubstr("\"impl=cublaslt,algo=0\""));  // commas are quoted
  EXPECT_THAT(csv, HasSubstr("range, \"\"7 > 5\"\"\""));    // quotes doubled
  // 2.744 * 0.99 and 2.744 * 1.02 in double print as the numbers they stand for.
  EXPECT_THAT(csv, HasSubstr(",2.744,2.71656,2.79888,"));
  EXPECT_THAT(csv, Not(HasSubstr("99999")));
  const std::vector<Measurement> back = parse_measurements_csv(csv);
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].kernel, rows[i].kernel);
    EXPECT_EQ(back[i].problem, rows[i].problem);
    EXPECT_EQ(back[i].config, rows[i].config);
    EXPECT_EQ(back[i].status, rows[i].status);
    EXPECT_TRUE(same_number(back[i].median_ms, rows[i].median_ms)) << i;
    EXPECT_TRUE(same_number(back[i].p10_ms, rows[i].p10_ms)) << i;
    EXPECT_TRUE(same_number(back[i].p90_ms, rows[i].p90_ms)) << i;
    EXPECT_TRUE(same_number(back[i].rel_err, rows[i].rel_err)) << i;
    EXPECT_EQ(back[i].reason, rows[i].reason);
    EXPECT_EQ(back[i].reps, rows[i].reps);
    EXPECT_EQ(back[i].is_default, rows[i].is_default);
    EXPECT_EQ(back[i].is_winner, rows[i].is_winner);
  }
}

TEST(ReportCsv, MalformedInputNamesTheLine) {
  const std::string header =
      "kernel,problem,config,status,median_ms,p10_ms,p90_ms,rel_err,reason,reps,role,"
      "speedup_vs_default,threads\n";
  const auto error_of = [](const std::string& text) {
    try {
      parse_measurements_csv(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_THAT(error_of(""), HasSubstr("the file is empty"));
  EXPECT_THAT(error_of("kernel,problem\n"), HasSubstr("line 1: expected the header"));
  EXPECT_THAT(error_of(header + "k,p,threads=1,ok,1,1,1,0,,5,,,1\nk,p,threads=1,ok\n"),
              HasSubstr("line 3: expected 13 fields but got 4"));
  EXPECT_THAT(error_of(header + "k,p,threads=1,ok,fast,1,1,0,,5,,,1\n"),
              HasSubstr("line 2: median_ms must be a number but is 'fast'"));
  EXPECT_THAT(error_of(header + "k,p,threads=x,ok,1,1,1,0,,5,,,1\n"), HasSubstr("line 2: config"));
  EXPECT_THAT(error_of(header + "k,p,threads=1,ok,1,1,1,0,,5,best,,1\n"),
              HasSubstr("line 2: role must be"));
  EXPECT_THAT(error_of(header + "k,p,\"threads=1,ok,1\n"), HasSubstr("never closed"));
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(ReportCsv, OneColumnPerParameterAndTheSpeedup) {
  const std::string csv = measurements_csv(synthetic());
  std::istringstream in(csv);
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(header,
            "kernel,problem,config,status,median_ms,p10_ms,p90_ms,rel_err,reason,reps,role,"
            "speedup_vs_default,impl,algo,bm,bn,bk,tm,tn,vec,stages,threads,items");
  // The default (2.744 ms) against itself, then the winner: 2.744 / 2.701.
  EXPECT_THAT(first, testing::EndsWith(",default,1,cublaslt,0,,,,,,,,,"));
  EXPECT_THAT(second, HasSubstr(fmt::format(",winner,{:.6g},cublaslt,1,", 2.744 / 2.701)));
  // A parameter column that disagrees with the config is named.
  std::string bad = csv;
  bad.replace(bad.find(",cublaslt,0,"), 12, ",cublaslt,9,");
  EXPECT_THAT(
      [&] {
        try {
          parse_measurements_csv(bad);
        } catch (const Error& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      }(),
      HasSubstr("line 2: column algo is '9' but the config impl=cublaslt,algo=0 says '0'"));
}

TEST(ReportSvg, TimedConfigsFastestFirstOnAnAxisThatDoesNotStartAtZero) {
  std::vector<Measurement> rows = synthetic();
  rows.pop_back();  // one kernel
  ChartInfo info;
  info.title = "gemm_bias_relu m=1024,n=8192,k=8192: time of one GemmBiasReLU forward";
  info.floor_ms = 2.69;
  const std::string svg = measurements_svg(rows, info);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  EXPECT_THAT(svg, HasSubstr(">gemm_bias_relu m=1024,n=8192,k=8192: time of one GemmBiasReLU "
                             "forward</text>"));
  EXPECT_EQ(count(svg, "<circle"), 3u);          // one dot per timed config
  EXPECT_EQ(count(svg, "<rect x=\"450\""), 2u);  // one grey stub per rejected config
  // Fastest first: the winner (2.701), the default (2.744), then the own kernel (2.98).
  const size_t best = svg.find(">2.7010  1.016x vs default best</text>");
  const size_t dflt = svg.find(">2.7440 default</text>");
  const size_t own = svg.find(">2.9800  0.921x vs default</text>");
  ASSERT_NE(best, std::string::npos) << svg;
  ASSERT_NE(dflt, std::string::npos);
  ASSERT_NE(own, std::string::npos);
  EXPECT_LT(best, dflt);
  EXPECT_LT(dflt, own);
  EXPECT_THAT(svg, HasSubstr("fill=\"#2e9e44\""));    // the best dot
  EXPECT_THAT(svg, HasSubstr("stroke=\"#1f3f7a\""));  // the default's ring
  EXPECT_THAT(svg, HasSubstr("floor 2.6900"));
  EXPECT_THAT(svg, HasSubstr("the time axis starts at 2.6"));
  EXPECT_THAT(svg, Not(HasSubstr(">0.00</text>")));
  EXPECT_THAT(svg, HasSubstr("launch_failed: cublaslt_gemm"));  // a rejected row
  EXPECT_THAT(svg, HasSubstr("&quot;7 &gt; 5&quot;"));          // escaped text
}

TEST(ReportFiles, CsvAndOneChartPerKernelAndProblem) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("tt_autotune_report_{}", getpid()) / "nested";
  fs::remove_all(dir.parent_path());
  const std::vector<Measurement> rows = synthetic();
  const std::vector<std::string> files = write_report(dir.string(), rows);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0], (dir / "measurements.csv").string());
  EXPECT_EQ(files[1],
            (dir / "gemm_bias_relu__m_1024_n_8192_k_8192_align_16B_precision_strict.svg").string());
  EXPECT_EQ(files[2], (dir / "gemm_instance_norm_add_mul.row_norm_add_mul__segments_1024_length_"
                             "8192_align_16B_precision_strict.svg")
                          .string());
  std::ifstream in(files[0]);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(parse_measurements_csv(text.str()).size(), rows.size());
  for (const std::string& f : files) EXPECT_GT(fs::file_size(f), 0u) << f;
  fs::remove_all(dir.parent_path());
}

TEST(ReportFiles, StemKeepsOnlySafeCharacters) {
  EXPECT_EQ(report_file_stem("a/b c", "x=1,y=../2"), "a_b_c__x_1_y_.._2");
}

}  // namespace
}  // namespace tt::autotune
