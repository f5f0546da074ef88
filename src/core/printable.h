// Text from outside the process (a report, a file, a peer on the network) on its way to a
// terminal or a one-line message.
#pragma once

#include <cstdio>
#include <string>

namespace collbench {

// Control characters become '?': C0 (newline, ESC, ...), DEL, the C1 controls in their UTF-8 form
// (U+0080-U+009F: U+009B is a CSI to some terminals) and every byte that is not part of valid
// UTF-8 (a lone 0x9B is a CSI to 8-bit terminals). What remains cannot forge lines, drive the
// terminal or change its title.
std::string printable(const std::string& text);

// Writes printable(line) and a newline to `stream` and flushes it: the one way a progress line,
// warning or error that carries text from outside reaches a terminal.
void print_line(std::FILE* stream, const std::string& line);

// printf's text as a string: the lines a workload gives its driver to print.
std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));

// `text` with ASCII letters in lower case ("NVLS" -> "nvls").
std::string lowercase(std::string text);

// The texts of `items` with `separator` between them: {"a", "b"} and ", " give "a, b" (empty texts
// at the start get no separator after them).
template <typename Texts>
std::string joined(const Texts& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

}  // namespace collbench
