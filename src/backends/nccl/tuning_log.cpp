#include "backends/nccl/tuning_log.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>

namespace collbench::nccl {
namespace {

// Splits off the next whitespace-separated word.
std::string_view next_word(std::string_view& text) {
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  std::size_t end = start;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  const std::string_view word = text.substr(start, end - start);
  text.remove_prefix(end);
  return word;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::optional<TuningChoice> parse_tuning_line(std::string_view line) {
  constexpr std::string_view kMarker = "NCCL INFO ";
  const auto marker = line.find(kMarker);
  if (marker == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(marker + kMarker.size());
  // "<Function>: <bytes> Bytes -> Algo <algo> proto <proto> channel{Lo..Hi}={a..b}"
  std::string_view function = next_word(rest);
  if (function.size() < 2 || function.back() != ':') return std::nullopt;
  function.remove_suffix(1);
  const std::string_view bytes = next_word(rest);
  if (!all_digits(bytes) || next_word(rest) != "Bytes" || next_word(rest) != "->" || next_word(rest) != "Algo") {
    return std::nullopt;
  }
  const std::string_view algorithm = next_word(rest);
  if (algorithm.empty() || next_word(rest) != "proto") return std::nullopt;
  const std::string_view protocol = next_word(rest);
  if (protocol.empty()) return std::nullopt;
  TuningChoice choice;
  choice.function = std::string(function);
  choice.bytes = std::stoull(std::string(bytes));
  choice.algorithm = std::string(algorithm);
  choice.protocol = std::string(protocol);
  return choice;
}

std::string nccl_function_name(std::string_view collective) {
  static const std::map<std::string_view, std::string_view> kNames = {
      {"all_reduce", "AllReduce"}, {"broadcast", "Broadcast"}, {"reduce", "Reduce"},
      {"all_gather", "AllGather"}, {"reduce_scatter", "ReduceScatter"},
  };
  const auto found = kNames.find(collective);
  return found == kNames.end() ? std::string() : std::string(found->second);
}

std::string summarize_choices(const std::vector<TuningChoice>& choices, std::string_view function,
                              std::uint64_t bytes) {
  std::map<std::string, int> counts;
  for (const auto& choice : choices) {
    if (choice.function == function && choice.bytes == bytes) ++counts[choice.algorithm + "/" + choice.protocol];
  }
  if (counts.empty()) return "";
  const auto most = std::max_element(counts.begin(), counts.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string text = most->first;
  std::string others;
  for (const auto& [name, count] : counts) {
    if (name != most->first) others += (others.empty() ? "" : ", ") + name;
  }
  if (!others.empty()) text += " (also " + others + ")";
  return text;
}

std::vector<TuningChoice> TuningLogFollower::read_new() {
  std::vector<TuningChoice> choices;
  std::ifstream file(path_, std::ios::binary);
  if (!file) return choices;
  file.seekg(static_cast<std::streamoff>(offset_));
  std::string line;
  while (std::getline(file, line)) {
    if (file.eof()) break;  // no newline yet: NCCL is still writing it; read it next time
    offset_ += line.size() + 1;
    if (auto choice = parse_tuning_line(line)) choices.push_back(std::move(*choice));
  }
  return choices;
}

}  // namespace collbench::nccl
