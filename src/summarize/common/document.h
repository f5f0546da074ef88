// What every subcommand produces: tables of typed cells plus notes, rendered as text, Markdown,
// CSV or JSON. Keeping results as data until the last step is what lets one pure function serve
// all four formats (and the tests, which look at cells instead of parsing printed text).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collbench::summarize {

enum class Format { kText, kMarkdown, kCsv, kJson };
Format parse_format(const std::string& name);  // throws InputError

struct Column {
  std::string name;
  int precision = -1;  // digits after the point for numbers; -1 prints integers and text as they are
};

// A table whose rows fall into groups (series). Text and Markdown print one block per group with
// the group's key as a heading; CSV and JSON flatten the key into leading columns, so a script
// gets one row per (group, row).
struct Table {
  std::string title;
  std::vector<std::string> group_columns;
  std::vector<Column> columns;
  struct Group {
    std::vector<nlohmann::json> key;  // one value per group column
    std::vector<std::vector<nlohmann::json>> rows;  // cells: numbers, strings or null
  };
  std::vector<Group> groups;
};

struct Document {
  std::vector<Table> tables;
  std::vector<std::string> notes;  // partial reports, missing points, how to read the figures
  nlohmann::json extra = nlohmann::json::object();  // command-specific fields for --format json
};

std::string render(const Document& document, Format format);

// A cell as text: numbers with the column's precision, null as "n/a".
std::string cell_text(const nlohmann::json& cell, int precision);

}  // namespace collbench::summarize
