// Reading a report's JSON: every accessor names the key path it failed on, so a bad file gets one
// precise sentence (ReportFormatError). Shared by the report reader (report_read.cpp) and the
// kinds' reader views (workloads/<kind>/report/: pt2pt_view.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report_json.h"

namespace collbench::report {

// Reading: every accessor names the key path it failed on, so a bad file gets one precise sentence.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ReportFormatError(where_ + key + ": " + what);
  }

  const nlohmann::json& field(const nlohmann::json& object, const std::string& key) const {
    if (!object.is_object()) fail("", "expected an object");
    const auto it = object.find(key);
    if (it == object.end()) fail("." + key, "missing");
    return *it;
  }

  std::string string(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_string()) fail("." + key, "expected a string");
    return value.get<std::string>();
  }

  double number(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_number()) fail("." + key, "expected a number");
    const double number = value.get<double>();
    if (!std::isfinite(number)) fail("." + key, "not a finite number");
    return number;
  }

  double non_negative(const nlohmann::json& object, const std::string& key) const {
    const double value = number(object, key);
    if (value < 0) fail("." + key, "must not be negative");
    return value;
  }

  std::int64_t integer(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_number_integer()) fail("." + key, "expected an integer");
    return value.get<std::int64_t>();
  }

  std::uint64_t unsigned_integer(const nlohmann::json& object, const std::string& key) const {
    const nlohmann::json& value = field(object, key);
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
      fail("." + key, "expected a non-negative integer");
    }
    return value.get<std::uint64_t>();
  }

  std::optional<double> optional_number(const nlohmann::json& object, const std::string& key) const {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return std::nullopt;
    return number(object, key);
  }

  std::map<std::string, std::string> string_map(const nlohmann::json& object, const std::string& key) const {
    std::map<std::string, std::string> out;
    const auto it = object.find(key);
    if (it == object.end()) return out;
    if (!it->is_object()) fail("." + key, "expected an object of strings");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_string()) fail("." + key + "." + name, "expected a string");
      out[name] = value.get<std::string>();
    }
    return out;
  }

  Reader at(const std::string& key) const { return Reader(where_ + key); }

 private:
  std::string where_;
};

// ===== What the reader (report_read.cpp) shares with the kinds' views of their own rows ======
// How every timed row was measured, read the same way in every kind; keys an older report lacks
// keep their defaults.
void read_measurement(const Reader& reader, const nlohmann::json& object, Measurement& measured);
// `path` in a row of the kind `spec`, or where an older report kept it (RowKindSpec::former_names);
// nullptr when the row has neither.
const nlohmann::json* find_row_field(const nlohmann::json& object, const RowKindSpec& spec, const std::string& path);
// A report file's JSON, or ReportFormatError naming the path.
nlohmann::json read_report_json(const std::string& path);
// What `read` makes of a report file's JSON; any error names the path.
template <typename Read>
auto read_from_file(const std::string& path, Read read) {
  const nlohmann::json document = read_report_json(path);
  try {
    return read(document);
  } catch (const ReportFormatError& e) {
    throw ReportFormatError(path + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw ReportFormatError(path + ": " + std::string(e.what()));
  }
}

}  // namespace collbench::report
