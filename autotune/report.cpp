// CSV and SVG output of a sweep (see the header for both formats).
#include "autotune/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;

const char* const kColumns[] = {"kernel", "problem", "config", "status", "median_ms", "p10_ms",
                                "p90_ms", "rel_err", "reason", "reps",   "role"};
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
std::string number(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

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
  std::string out;
  for (size_t i = 0; i < kColumnCount; ++i) out += fmt::format("{}{}", i ? "," : "", kColumns[i]);
  out += "\n";
  for (const Measurement& m : rows) {
    std::string reason = m.reason;
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    const std::vector<std::string> fields = {csv_field(m.kernel),
                                             csv_field(m.problem),
                                             csv_field(m.config.str()),
                                             csv_field(m.status),
                                             number(m.median_ms),
                                             number(m.p10_ms),
                                             number(m.p90_ms),
                                             number(m.rel_err),
                                             csv_field(reason),
                                             std::to_string(m.reps),
                                             role(m)};
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
  for (size_t i = 0; i < header.fields.size(); ++i) got += (i ? "," : "") + header.fields[i];
  TT_CHECK(got == expected, "measurements CSV line 1: expected the header '{}' but got '{}'",
           expected, got);
  std::vector<Measurement> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    const Record& rec = records[r];
    TT_CHECK(rec.fields.size() == kColumnCount,
             "measurements CSV line {}: expected {} fields but got {}", rec.line, kColumnCount,
             rec.fields.size());
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
    m.is_default = r_role.find("default") != std::string::npos;
    m.is_winner = r_role.find("winner") != std::string::npos;
    rows.push_back(std::move(m));
  }
  return rows;
}

std::string measurements_svg(const std::vector<Measurement>& rows, const std::string& title) {
  constexpr int kLabelWidth = 470, kBarWidth = 360, kValueWidth = 170;
  constexpr int kRowHeight = 18, kTop = 48, kBottom = 24;
  const int width = kLabelWidth + kBarWidth + kValueWidth;
  const int height = kTop + kRowHeight * static_cast<int>(rows.size()) + kBottom;
  double longest = 0;
  for (const Measurement& m : rows) {
    if (m.ok() && std::isfinite(m.median_ms)) longest = std::max(longest, m.median_ms);
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"monospace\" font-size=\"11\">\n",
      width, height);
  svg += fmt::format("<text x=\"8\" y=\"18\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
                     xml_escape(title));
  svg += fmt::format(
      "<text x=\"8\" y=\"36\">median time per config (ms); green: best, outlined: default, "
      "grey: rejected or skipped</text>\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    const int y = kTop + kRowHeight * static_cast<int>(i);
    const bool timed = m.ok() && std::isfinite(m.median_ms) && longest > 0;
    const double length = timed ? std::max(1.0, kBarWidth * m.median_ms / longest) : 6.0;
    const char* fill = !timed ? "#bbbbbb" : m.is_winner ? "#2e9e44" : "#7aa6d6";
    const std::string stroke =
        m.is_default ? " stroke=\"#1f3f7a\" stroke-width=\"2\"" : std::string();
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 6,
                       y + 12, xml_escape(m.config.str()));
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"{}><title>{}</title>"
        "</rect>\n",
        kLabelWidth, y + 2, length, kRowHeight - 4, fill, stroke,
        xml_escape(m.reason.empty() ? m.status : m.status + ": " + m.reason));
    std::string label = timed ? fmt::format("{:.4f}", m.median_ms) : m.status;
    if (m.is_winner) label += " best";
    if (m.is_default) label += " default";
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", kLabelWidth + length + 6, y + 12,
                       xml_escape(label));
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

std::vector<std::string> write_report(const std::string& dir,
                                      const std::vector<Measurement>& rows) {
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
    write(fs::path(dir) / (report_file_stem(key.first, key.second) + ".svg"),
          measurements_svg(groups[key], key.first + "  " + key.second));
  }
  return written;
}

}  // namespace tt::autotune
