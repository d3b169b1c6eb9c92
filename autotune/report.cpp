// CSV and SVG output of a sweep (see the header for both formats).
#include "autotune/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;

const char* const kColumns[] = {"kernel",    "problem", "config", "status",
                                "median_ms", "p10_ms",  "p90_ms", "rel_err",
                                "reason",    "reps",    "role",   "speedup_vs_default"};
constexpr size_t kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Shortest text that reads back as the same double; "" for NaN.
// Six significant digits: a timing's noise is far above the sixth digit, and the
// shortest round-trip form printed sums' rounding ("1.8619999999999999").
std::string number(double v) { return std::isnan(v) ? std::string() : fmt::format("{:.6g}", v); }

std::string role(const Measurement& m) {
  if (m.is_default && m.is_winner) return "default+winner";
  if (m.is_default) return "default";
  if (m.is_winner) return "winner";
  return "";
}

// Splits CSV text into records of fields; quoted fields may hold commas, quotes and
// line breaks. Each record remembers the line it starts on.
struct Record {
  int line = 0;
  std::vector<std::string> fields;
};

std::vector<Record> split_csv(const std::string& text) {
  std::vector<Record> records;
  Record current;
  std::string field;
  bool quoted = false;
  bool field_started = false;
  int line = 1;
  current.line = 1;
  const auto end_record = [&] {
    current.fields.push_back(field);
    field.clear();
    field_started = false;
    if (!(current.fields.size() == 1 && current.fields[0].empty())) records.push_back(current);
    current = Record{};
    current.line = line;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      current.fields.push_back(field);
      field.clear();
      field_started = false;
    } else if (c == '\n') {
      ++line;
      end_record();
    } else if (c != '\r') {
      field += c;
      field_started = true;
    }
  }
  TT_CHECK(!quoted, "measurements CSV: a quoted field that starts on line {} is never closed",
           current.line);
  if (field_started || !current.fields.empty()) end_record();
  return records;
}

double parse_number(const std::string& text, int line, const char* column) {
  if (text.empty()) return NAN;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  TT_CHECK(used == text.size(), "measurements CSV line {}: {} must be a number but is '{}'", line,
           column, text);
  return v;
}

// The parameter columns: "impl" when any config has one, then every parameter name
// in order of first appearance.
std::vector<std::string> parameter_names(const std::vector<Measurement>& rows) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const Measurement& m : rows)
    if (!m.config.impl().empty()) add("impl");
  for (const Measurement& m : rows)
    for (const auto& [name, value] : m.config.values()) add(name);
  return names;
}

std::string parameter_value(const Config& c, const std::string& name) {
  if (name == "impl") return c.impl();
  return c.has(name) ? std::to_string(c.get(name)) : std::string();
}

using ProblemId = std::pair<std::string, std::string>;

// The timed default's median per (kernel, problem).
std::map<ProblemId, double> default_medians(const std::vector<Measurement>& rows) {
  std::map<ProblemId, double> out;
  for (const Measurement& m : rows)
    if (m.is_default && m.ok() && std::isfinite(m.median_ms) && m.median_ms > 0)
      out[{m.kernel, m.problem}] = m.median_ms;
  return out;
}

double speedup_vs_default(const Measurement& m, const std::map<ProblemId, double>& defaults) {
  const auto it = defaults.find({m.kernel, m.problem});
  if (it == defaults.end() || !m.ok() || !(m.median_ms > 0)) return NAN;
  return it->second / m.median_ms;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string measurements_csv(const std::vector<Measurement>& rows) {
  const std::vector<std::string> params = parameter_names(rows);
  const std::map<ProblemId, double> defaults = default_medians(rows);
  std::string out;
  for (size_t i = 0; i < kColumnCount; ++i) out += fmt::format("{}{}", i ? "," : "", kColumns[i]);
  for (const std::string& p : params) out += "," + csv_field(p);
  out += "\n";
  for (const Measurement& m : rows) {
    std::string reason = m.reason;
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    std::vector<std::string> fields = {csv_field(m.kernel),
                                       csv_field(m.problem),
                                       csv_field(m.config.str()),
                                       csv_field(m.status),
                                       number(m.median_ms),
                                       number(m.p10_ms),
                                       number(m.p90_ms),
                                       number(m.rel_err),
                                       csv_field(reason),
                                       std::to_string(m.reps),
                                       role(m),
                                       number(speedup_vs_default(m, defaults))};
    for (const std::string& p : params) fields.push_back(csv_field(parameter_value(m.config, p)));
    for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
    out += "\n";
  }
  return out;
}

std::vector<Measurement> parse_measurements_csv(const std::string& text) {
  const std::vector<Record> records = split_csv(text);
  TT_CHECK(!records.empty(), "measurements CSV: the file is empty; expected a header line");
  const Record& header = records.front();
  std::string expected;
  for (size_t i = 0; i < kColumnCount; ++i)
    expected += fmt::format("{}{}", i ? "," : "", kColumns[i]);
  std::string got;
  for (size_t i = 0; i < std::min(header.fields.size(), kColumnCount); ++i)
    got += (i ? "," : "") + header.fields[i];
  TT_CHECK(got == expected,
           "measurements CSV line 1: expected the header to start '{}' but got '{}'", expected,
           got);
  const std::vector<std::string> params(header.fields.begin() + kColumnCount, header.fields.end());
  std::vector<Measurement> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    const Record& rec = records[r];
    TT_CHECK(rec.fields.size() == header.fields.size(),
             "measurements CSV line {}: expected {} fields but got {}", rec.line,
             header.fields.size(), rec.fields.size());
    Measurement m;
    m.kernel = rec.fields[0];
    m.problem = rec.fields[1];
    try {
      m.config = Config::parse(rec.fields[2]);
    } catch (const Error& e) {
      TT_FAIL("measurements CSV line {}: {}", rec.line, e.what());
    }
    m.status = rec.fields[3];
    m.median_ms = parse_number(rec.fields[4], rec.line, "median_ms");
    m.p10_ms = parse_number(rec.fields[5], rec.line, "p10_ms");
    m.p90_ms = parse_number(rec.fields[6], rec.line, "p90_ms");
    m.rel_err = parse_number(rec.fields[7], rec.line, "rel_err");
    m.reason = rec.fields[8];
    const double reps = parse_number(rec.fields[9], rec.line, "reps");
    m.reps = std::isnan(reps) ? 0 : static_cast<int>(reps);
    const std::string& r_role = rec.fields[10];
    TT_CHECK(
        r_role.empty() || r_role == "default" || r_role == "winner" || r_role == "default+winner",
        "measurements CSV line {}: role must be default, winner, default+winner or empty "
        "but is '{}'",
        rec.line, r_role);
    parse_number(rec.fields[11], rec.line, "speedup_vs_default");
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string& value = rec.fields[kColumnCount + i];
      TT_CHECK(value == parameter_value(m.config, params[i]),
               "measurements CSV line {}: column {} is '{}' but the config {} says '{}'", rec.line,
               params[i], value, m.config.str(), parameter_value(m.config, params[i]));
    }
    m.is_default = r_role.find("default") != std::string::npos;
    m.is_winner = r_role.find("winner") != std::string::npos;
    rows.push_back(std::move(m));
  }
  return rows;
}

namespace {

// A 1-2-5 step giving about `ticks` intervals over `range`.
double nice_step(double range, int ticks) {
  const double raw = range / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10.0 * magnitude;
}

// Enough decimals to tell ticks `step` apart.
std::string tick_label(double v, double step) {
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step))));
  return fmt::format("{:.{}f}", v, decimals);
}

std::string shortened(const std::string& text, size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 3) + "...";
}

}  // namespace

std::string measurements_svg(const std::vector<Measurement>& rows, const ChartInfo& info) {
  constexpr int kLabelRight = 430, kPlotLeft = 450, kPlotWidth = 330, kTextLeft = 800;
  constexpr int kWidth = 1060, kRowHeight = 18, kBottom = 16;
  const auto lines_of = [](const std::string& text) {
    return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  const int header_lines =
      lines_of(info.title) * 17 + (info.subtitle.empty() ? 1 : lines_of(info.subtitle)) * 15;
  const int kTop = 18 + header_lines + (std::isfinite(info.floor_ms) ? 46 : 32);
  std::vector<const Measurement*> timed, untimed;
  for (const Measurement& m : rows)
    (m.ok() && std::isfinite(m.median_ms) ? timed : untimed).push_back(&m);
  std::stable_sort(timed.begin(), timed.end(), [](const Measurement* a, const Measurement* b) {
    return a->median_ms < b->median_ms;
  });
  const std::map<ProblemId, double> defaults = default_medians(rows);

  // The axis spans the whiskers (and the floor), padded, never down to zero unless the
  // data does: differences of a few percent must be visible.
  double lo = INFINITY, hi = -INFINITY;
  for (const Measurement* m : timed) {
    lo = std::min({lo, m->median_ms, std::isfinite(m->p10_ms) ? m->p10_ms : m->median_ms});
    hi = std::max({hi, m->median_ms, std::isfinite(m->p90_ms) ? m->p90_ms : m->median_ms});
  }
  if (std::isfinite(info.floor_ms) && !timed.empty()) {
    lo = std::min(lo, info.floor_ms);
    hi = std::max(hi, info.floor_ms);
  }
  if (!timed.empty()) {
    const double pad = hi > lo ? 0.06 * (hi - lo) : 0.05 * std::max(hi, 1e-6);
    lo = std::max(0.0, lo - pad);
    hi += pad;
  }
  const auto x_of = [&](double ms) { return kPlotLeft + kPlotWidth * (ms - lo) / (hi - lo); };

  const int timed_bottom = kTop + kRowHeight * static_cast<int>(timed.size());
  const int untimed_top = timed_bottom + (untimed.empty() ? 0 : 26);
  const int height = untimed_top + kRowHeight * static_cast<int>(untimed.size()) + kBottom;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"monospace\" font-size=\"11\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
      kWidth, height);
  // Title and subtitle lines ('\n' separates them), then the legend.
  int line_y = 18;
  std::istringstream title_lines(info.title);
  for (std::string line; std::getline(title_lines, line); line_y += 17)
    svg += fmt::format("<text x=\"8\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
                       line_y, xml_escape(line));
  std::istringstream subtitle_lines(info.subtitle.empty()
                                        ? "median per config (CUDA events, L2 flushed before each "
                                          "repetition); whiskers: 10th-90th percentile"
                                        : info.subtitle);
  for (std::string line; std::getline(subtitle_lines, line); line_y += 15)
    svg += fmt::format("<text x=\"8\" y=\"{}\">{}</text>\n", line_y, xml_escape(line));
  svg += fmt::format(
      "<text x=\"8\" y=\"{}\" fill=\"#555555\">{} timed config{}, fastest first; green dot: "
      "best, ringed: default{}{}</text>\n",
      line_y, timed.size(), timed.size() == 1 ? "" : "s",
      std::isfinite(info.floor_ms) ? "; dashed red: floor" : "",
      timed.empty() ? "" : fmt::format("; the time axis starts at {:.3f} ms, not 0", lo));
  if (!timed.empty()) {
    // Axis: ticks and grid lines.
    const double step = nice_step(hi - lo, 5);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">ms</text>\n", kLabelRight,
                       kTop - 12);
    for (double t = std::ceil(lo / step) * step; t <= hi + 1e-12; t += step) {
      const double x = x_of(t);
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#dddddd\"/>\n"
          "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          x, kTop - 6, timed_bottom, kTop - 12, tick_label(t, step));
    }
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888888\"/>\n",
                       kPlotLeft, kTop - 6, kPlotLeft + kPlotWidth);
    if (std::isfinite(info.floor_ms)) {
      const double x = x_of(info.floor_ms);
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#cc2222\" "
          "stroke-dasharray=\"4,3\"/>\n<text x=\"{0:.1f}\" y=\"{3}\" fill=\"#cc2222\" "
          "text-anchor=\"middle\">floor {4:.4f}</text>\n",
          x, kTop - 6, timed_bottom, kTop - 26, info.floor_ms);
    }
  }
  for (size_t i = 0; i < timed.size(); ++i) {
    const Measurement& m = *timed[i];
    const int y = kTop + kRowHeight * static_cast<int>(i) + kRowHeight / 2;
    const double p10 = std::isfinite(m.p10_ms) ? m.p10_ms : m.median_ms;
    const double p90 = std::isfinite(m.p90_ms) ? m.p90_ms : m.median_ms;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelRight,
                       y + 4, xml_escape(m.config.str().empty() ? "(empty)" : m.config.str()));
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{2}\" x2=\"{1:.1f}\" y2=\"{2}\" stroke=\"#555555\"/>"
        "<line x1=\"{0:.1f}\" y1=\"{3}\" x2=\"{0:.1f}\" y2=\"{4}\" stroke=\"#555555\"/>"
        "<line x1=\"{1:.1f}\" y1=\"{3}\" x2=\"{1:.1f}\" y2=\"{4}\" stroke=\"#555555\"/>\n",
        x_of(p10), x_of(p90), y, y - 3, y + 3);
    const char* fill = m.is_winner ? "#2e9e44" : "#4a7fc1";
    const std::string ring =
        m.is_default ? " stroke=\"#1f3f7a\" stroke-width=\"2.5\"" : std::string(" stroke=\"none\"");
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{}\" r=\"{}\" fill=\"{}\"{}><title>{}: median {:.4f} ms, "
        "p10 {:.4f}, p90 {:.4f}, {} reps</title></circle>\n",
        x_of(m.median_ms), y, m.is_default ? 5.5 : 4.5, fill, ring, xml_escape(m.config.str()),
        m.median_ms, p10, p90, m.reps);
    std::string label = fmt::format("{:.4f}", m.median_ms);
    const double speedup = speedup_vs_default(m, defaults);
    if (std::isfinite(speedup) && !m.is_default)
      label += fmt::format("  {:.3f}x vs default", speedup);
    if (m.is_winner) label += " best";
    if (m.is_default) label += " default";
    svg += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>\n", kTextLeft, y + 4,
                       m.is_winner ? " font-weight=\"bold\"" : "", xml_escape(label));
  }
  if (!untimed.empty()) {
    svg += fmt::format(
        "<text x=\"8\" y=\"{}\" fill=\"#555555\">not timed (rejected or skipped):</text>\n",
        timed_bottom + 18);
  }
  for (size_t i = 0; i < untimed.size(); ++i) {
    const Measurement& m = *untimed[i];
    const int y = untimed_top + kRowHeight * static_cast<int>(i) + kRowHeight / 2;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#777777\">{}</text>\n",
                       kLabelRight, y + 4, xml_escape(m.config.str()));
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" "
        "fill=\"#bbbbbb\"><title>{}</title></rect>\n",
        kPlotLeft, y - 4, xml_escape(m.reason.empty() ? m.status : m.status + ": " + m.reason));
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" fill=\"#777777\">{}</text>\n", kPlotLeft + 14, y + 4,
        xml_escape(shortened(m.reason.empty() ? m.status : m.status + ": " + m.reason, 90)));
  }
  svg += "</svg>\n";
  return svg;
}

std::string report_file_stem(const std::string& kernel, const std::string& problem) {
  std::string stem = kernel + "__" + problem;
  for (char& c : stem) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (!keep) c = '_';
  }
  return stem;
}

std::vector<std::string> write_report(const std::string& dir, const std::vector<Measurement>& rows,
                                      const ReportContext& context) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  TT_CHECK(!ec, "tune report: cannot create the directory '{}': {}", dir, ec.message());
  std::vector<std::string> written;
  const auto write = [&](const fs::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
    out.close();
    TT_CHECK(out.good(), "tune report: cannot write '{}'", path.string());
    written.push_back(path.string());
  };
  write(fs::path(dir) / "measurements.csv", measurements_csv(rows));
  std::vector<std::pair<std::string, std::string>> order;  // (kernel, problem), first seen
  std::map<std::pair<std::string, std::string>, std::vector<Measurement>> groups;
  for (const Measurement& m : rows) {
    const auto key = std::make_pair(m.kernel, m.problem);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(m);
  }
  for (const auto& key : order) {
    ChartInfo info;
    const auto timed = context.timed.find(key);
    info.title =
        fmt::format("{}: {} per config\n{}", key.first,
                    timed == context.timed.end() ? "time" : "time of " + timed->second, key.second);
    info.subtitle = fmt::format(
        "{}median of the repetitions (CUDA events, L2 flushed before each), whiskers: 10th-90th "
        "percentile;\nbeside each dot: median ms and speedup against the kernel's default config",
        context.device.empty() ? "" : "on " + context.device + ": ");
    const auto floor = context.floor_ms.find(key);
    if (floor != context.floor_ms.end()) info.floor_ms = floor->second;
    write(fs::path(dir) / (report_file_stem(key.first, key.second) + ".svg"),
          measurements_svg(groups[key], info));
  }
  return written;
}

}  // namespace tt::autotune
