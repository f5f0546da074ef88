// How rows are told apart: the fields that name a series, and the tags that do not.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "summarize/load.h"

namespace collbench::summarize {

// Ordered (name, value) pairs; equal keys mean "the same configuration".
using SeriesKey = std::vector<std::pair<std::string, std::string>>;

// The tags a sweep adds for bookkeeping; they never split a series (a repeat is the same point).
bool is_bookkeeping_tag(const std::string& key);

// Tags as "k=v k2=v2" without bookkeeping tags and without `also_ignored`.
std::string tags_text(const report::Context& context, const std::string& also_ignored = "");

// A row and the report it came from.
struct Observation {
  const LoadedReport* source = nullptr;
  const report::ResultRow* row = nullptr;
};
std::vector<Observation> observations(const std::vector<LoadedReport>& reports);

// The median of values (they need not be sorted); 0 for none.
double median(std::vector<double> values);

// Group headings for tables: names and values of a key, as table cells.
std::vector<std::string> key_names(const SeriesKey& key);
std::vector<nlohmann::json> key_cells(const SeriesKey& key);

}  // namespace collbench::summarize
