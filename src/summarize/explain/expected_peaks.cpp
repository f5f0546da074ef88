#include "summarize/explain/expected_peaks.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/printable.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {

// The table's text, built in from src/summarize/explain/expected_peaks.txt (expected_peaks_table.cpp).
extern const char* const kExpectedPeaksTable;

namespace {

// No link of today reaches 100 TB/s a direction (NVLink 5 is 0.9 TB/s): a rate above it is a typo
// (a unit forgotten, MB/s written as GB/s a thousand times over).
constexpr double kAbsurdGbps = 100000;

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t bar; (bar = line.find('|', start)) != std::string::npos; start = bar + 1) fields.push_back(trimmed(line.substr(start, bar - start)));
  fields.push_back(trimmed(line.substr(start)));
  return fields;
}

std::string lowered(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The word MODEL within a device name: after the start or a space, before the end, a space or '-'
// (so "H200" is not found in "GH200", and "A100-SXM4" is in "A100-SXM4-80GB").
bool names_model(const std::string& device_name, const std::string& model) {
  for (std::size_t at = device_name.find(model); at != std::string::npos; at = device_name.find(model, at + 1)) {
    const std::size_t after = at + model.size();
    const bool starts = at == 0 || device_name[at - 1] == ' ';
    const bool ends = after == device_name.size() || device_name[after] == ' ' || device_name[after] == '-';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::optional<double> parse_rate_gbps(const std::string& text) {
  const std::string rate = lowered(trimmed(text));
  // Longest units first: "gbit/s" before "gbit", "gb/s" before "b/s".
  static const std::pair<const char*, double> kUnits[] = {{"gbit/s", 0.125}, {"mbit/s", 1.25e-4}, {"gbit", 0.125}, {"mbit", 1.25e-4},
                                                          {"gb/s", 1.0},      {"mb/s", 1e-3}};
  for (const auto& [unit, scale] : kUnits) {
    const std::string suffix = unit;
    if (rate.size() <= suffix.size() || rate.compare(rate.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string number = trimmed(rate.substr(0, rate.size() - suffix.size()));
    if (number.empty()) return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value)) return std::nullopt;
    return value * scale;
  }
  return std::nullopt;
}

ExpectedPeaks ExpectedPeaks::built_in() {
  ExpectedPeaks peaks;
  peaks.add(kExpectedPeaksTable, "the built-in table");
  return peaks;
}

void ExpectedPeaks::add(const std::string& text, const std::string& origin_name) {
  std::istringstream in(text);
  std::string line;
  std::vector<GpuLink> added_gpus;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file written on Windows reads the same
    const std::string content = trimmed(line);
    if (content.empty() || content[0] == '#') continue;
    const std::string where = printable(origin_name) + ", line " + std::to_string(number);
    const auto refuse = [&](const std::string& why) { throw InputError("expected peaks: " + where + ": " + why); };
    const std::vector<std::string> fields = fields_of(content);
    const std::size_t space = fields[0].find(' ');
    const std::string kind = fields[0].substr(0, space);
    const std::string name = space == std::string::npos ? "" : trimmed(fields[0].substr(space));
    if (kind != "link" && kind != "gpu") refuse("'" + printable(kind) + "' is neither 'link' nor 'gpu'");
    if (name.empty()) refuse("'" + kind + "' without a name");
    const std::size_t wanted = kind == "link" ? 5 : 3;
    if (fields.size() != wanted) {
      refuse(std::to_string(fields.size()) + " fields where a " + kind + " line has " + std::to_string(wanted) +
             (kind == "link" ? " (link NAME | LINE RATE | BUSBW | SOURCE | MEANING)" : " (gpu MODEL | LINK | SOURCE)"));
    }
    const std::string& source = fields[kind == "link" ? 3 : 2];
    if (source.empty()) refuse("no source: every entry names where its figures come from");
    if (kind == "gpu") {
      added_gpus.push_back({name, fields[1] == "-" ? "" : fields[1], source, where});
      continue;
    }
    const auto rate = [&](const std::string& field, const char* what) {
      const auto value = parse_rate_gbps(field);
      if (!value) refuse(std::string(what) + " '" + printable(field) + "' is not a number with a unit (Gbit/s, Mbit/s, GB/s or MB/s)");
      if (!(*value > 0)) refuse(std::string(what) + " '" + printable(field) + "' is not above zero");
      if (*value > kAbsurdGbps) refuse(std::string(what) + " '" + printable(field) + "' is above 100 TB/s, more than any link");
      return *value;
    };
    LinkPeak peak;
    peak.name = name;
    peak.line_gbps = rate(fields[1], "line rate");
    if (fields[2] != "-") peak.practical_gbps = rate(fields[2], "bus bandwidth");
    peak.source = source;
    peak.meaning = fields[4];
    peak.origin = where;
    links_[name] = std::move(peak);
  }
  for (const auto& gpu : added_gpus) {
    if (!gpu.link.empty() && !link(gpu.link)) throw InputError("expected peaks: " + gpu.origin + ": no link '" + printable(gpu.link) + "' in the table or the file");
  }
  // A later file's GPU lines are looked at first: they override the table's.
  gpus_.insert(gpus_.begin(), added_gpus.begin(), added_gpus.end());
}

void ExpectedPeaks::add_file(const std::string& path) {
  add(read_input(path, {"expected peaks file", 1 << 20, 64 << 10}), path);
}

const LinkPeak* ExpectedPeaks::link(const std::string& name) const {
  const auto it = links_.find(name);
  return it == links_.end() ? nullptr : &it->second;
}

const LinkPeak* ExpectedPeaks::link_of_gpu(const std::string& device_name) const {
  for (const auto& gpu : gpus_) {
    if (names_model(device_name, gpu.model)) return gpu.link.empty() ? nullptr : link(gpu.link);
  }
  return nullptr;
}

std::vector<std::string> ExpectedPeaks::link_names() const {
  std::vector<std::string> names;
  for (const auto& [name, peak] : links_) names.push_back(name);
  return names;
}

}  // namespace collbench::summarize
