#include "summarize/common/document.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/printable.h"
#include "report/table.h"
#include "summarize/common/input_error.h"

namespace collbench::summarize {
namespace {

using nlohmann::json;

// Report text (tags, names, file names) is data from whoever wrote the report. It must reach a
// reader as the characters it was, never as layout: a newline would start a new table row, an
// escape sequence would drive the terminal, '|' would split a Markdown cell.
std::string markdown_escape(const std::string& text) {
  std::string out;
  for (char c : report::printable(text)) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '[': case ']': case '\\':  // no links or images from report text
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string safe_text(const std::string& text, bool markdown) {
  return markdown ? markdown_escape(text) : report::printable(text);
}

std::string group_heading(const Table& table, const Table::Group& group, bool markdown) {
  std::string heading;
  for (std::size_t i = 0; i < table.group_columns.size() && i < group.key.size(); ++i) {
    if (!heading.empty()) heading += ", ";
    heading += safe_text(table.group_columns[i] + "=" + cell_text(group.key[i], -1), markdown);
  }
  return heading;
}

std::vector<std::vector<std::string>> text_rows(const Table& table, const Table::Group& group, bool markdown) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : group.rows) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      cells.push_back(i < row.size() ? safe_text(cell_text(row[i], table.columns[i].precision), markdown) : "");
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

void render_text_block(std::ostringstream& out, const Table& table, const Table::Group& group) {
  // Column names can be report text too (speedup's columns are the --by key's values).
  std::vector<std::string> names;
  for (const auto& column : table.columns) names.push_back(report::printable(column.name));
  std::vector<std::size_t> widths;
  for (const auto& name : names) widths.push_back(name.size());
  const auto rows = text_rows(table, group, false);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = " ";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      text += ' ' + std::string(widths[i] - cells[i].size(), ' ') + cells[i];
    }
    out << text << '\n';
  };
  line(names);
  for (const auto& row : rows) line(row);
}

void render_markdown_block(std::ostringstream& out, const Table& table, const Table::Group& group) {
  out << '|';
  for (const auto& column : table.columns) out << ' ' << markdown_escape(column.name) << " |";
  out << "\n|";
  for (std::size_t i = 0; i < table.columns.size(); ++i) out << (i == 0 ? "---|" : "---:|");
  out << '\n';
  for (const auto& row : text_rows(table, group, true)) {
    out << '|';
    for (const auto& cell : row) out << ' ' << cell << " |";
    out << '\n';
  }
}

bool is_plain_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// RFC 4180 quoting; control characters become '?' as in every other format; and a leading
// apostrophe on text a spreadsheet would run as a formula (=, +, -, @ first: OWASP's CSV injection
// advice), unless the text is a plain number such as "-1".
std::string csv_escape(const std::string& text) {
  std::string cell = report::printable(text);
  if (!cell.empty() && std::string("=+-@").find(cell.front()) != std::string::npos && !is_plain_number(cell)) {
    cell.insert(0, 1, '\'');
  }
  if (cell.find_first_of(",\"") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) quoted += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_cell(const json& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) return csv_escape(cell.get<std::string>());
  if (cell.is_number_float()) return formatted("%.9g", cell.get<double>());
  return csv_escape(cell.dump());
}

void render_csv(std::ostringstream& out, const Table& table) {
  std::vector<std::string> header = table.group_columns;
  for (const auto& column : table.columns) header.push_back(column.name);
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csv_escape(header[i]);
  out << '\n';
  for (const auto& group : table.groups) {
    for (const auto& row : group.rows) {
      std::vector<std::string> cells;
      for (const auto& key : group.key) cells.push_back(csv_cell(key));
      for (const auto& cell : row) cells.push_back(csv_cell(cell));
      for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
      out << '\n';
    }
  }
}

json table_json(const Table& table) {
  json rows = json::array();
  for (const auto& group : table.groups) {
    for (const auto& row : group.rows) {
      json object = json::object();
      for (std::size_t i = 0; i < table.group_columns.size() && i < group.key.size(); ++i) {
        object[table.group_columns[i]] = group.key[i];
      }
      for (std::size_t i = 0; i < table.columns.size() && i < row.size(); ++i) object[table.columns[i].name] = row[i];
      rows.push_back(std::move(object));
    }
  }
  return {{"title", table.title}, {"rows", rows}};
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "text") return Format::kText;
  if (name == "markdown" || name == "md") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  throw InputError("--format expects text, markdown, csv or json, not '" + name + "'");
}

std::string cell_text(const json& cell, int precision) {
  if (cell.is_null()) return "n/a";
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_number_float()) {
    const double value = cell.get<double>();
    if (!std::isfinite(value)) return "n/a";
    // Fixed notation past 1e15 is up to 309 digits (a time near the largest double): an exponent instead.
    return precision >= 0 && std::fabs(value) < 1e15 ? formatted("%.*f", precision, value) : formatted("%.4g", value);
  }
  return cell.dump();
}

std::string render(const Document& document, Format format) {
  std::ostringstream out;
  switch (format) {
    case Format::kJson: {
      json tables = json::array();
      for (const auto& table : document.tables) tables.push_back(table_json(table));
      json whole = document.extra;
      whole["tables"] = tables;
      whole["notes"] = document.notes;
      out << whole.dump(2) << '\n';
      break;
    }
    case Format::kCsv: {
      // Several tables in one CSV stream would not parse as one file; a blank line separates
      // them, and commands that feed scripts produce a single table.
      for (std::size_t i = 0; i < document.tables.size(); ++i) {
        if (i) out << '\n';
        render_csv(out, document.tables[i]);
      }
      break;
    }
    case Format::kMarkdown:
    case Format::kText: {
      const bool markdown = format == Format::kMarkdown;
      for (const auto& table : document.tables) {
        if (!table.title.empty()) out << (markdown ? "### " : "# ") << safe_text(table.title, markdown) << "\n\n";
        for (const auto& group : table.groups) {
          const std::string heading = group_heading(table, group, markdown);
          if (!heading.empty()) out << (markdown ? "**" + heading + "**" : "## " + heading) << "\n\n";
          if (markdown) render_markdown_block(out, table, group);
          else render_text_block(out, table, group);
          out << '\n';
        }
        if (table.groups.empty()) out << (markdown ? "_no rows_" : "(no rows)") << "\n\n";
      }
      for (const auto& note : document.notes) out << (markdown ? "> " : "note: ") << safe_text(note, markdown) << '\n';
      break;
    }
  }
  return out.str();
}

}  // namespace collbench::summarize
