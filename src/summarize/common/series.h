// How rows are told apart: the fields that name a series, and the tags that do not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "summarize/common/load.h"
#include "summarize/common/run_stats.h"

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
  const report::Row* row = nullptr;
};
std::vector<Observation> observations(const std::vector<LoadedReport>& reports);

// What makes two rows of different runs the same measurement: benchmark, world size, the kind's
// key fields and the row's size (tags and env are left out: repeated runs carry different tags).
SeriesKey row_identity(const Observation& observation);

// A key as "name=value name=value".
std::string describe_key(const SeriesKey& key);

// A key field as one word of a series' title (plot legends): the value, or name=value where the
// value alone says little (np=4, root=0, group=1, ranks=1,3); "" for a field that says nothing
// here (the "none" op and the -1 root of collectives that have neither).
std::string key_word(const std::string& name, const std::string& value);

// The spec of the rows' kind (every command first checks the reports share one kind).
const report::RowKindSpec& kind_of(const std::vector<LoadedReport>& reports);

// A key field's value in a row, or nullopt when the row's kind has no such field.
std::optional<std::string> key_field(const report::Row& row, const std::string& field);

// The size axis as a table cell: a number when the size is one field (bytes), else "mxnxk".
nlohmann::json size_cell(const report::Row& row);

// The headline rate of a row (figures[0]), or nullopt.
std::optional<double> headline(const report::Row& row);

// Group headings for tables: names and values of a key, as table cells.
std::vector<std::string> key_names(const SeriesKey& key);
std::vector<nlohmann::json> key_cells(const SeriesKey& key);

}  // namespace collbench::summarize
