#include "core/printable.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>

namespace collbench {
namespace {

// The length of the valid UTF-8 sequence starting at text[at] (overlong forms, surrogates and
// code points past U+10FFFF are invalid), or 0.
std::size_t utf8_sequence_length(const std::string& text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xbf) return 0;
  }
  return length;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c < 0x80) {
      out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
      ++at;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, at);
    const bool c1_control = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[at + 1]) <= 0x9f;
    if (length == 0 || c1_control) {
      out += '?';
      at += length == 0 ? 1 : length;
      continue;
    }
    out.append(text, at, length);
    at += length;
  }
  return out;
}

void print_line(std::FILE* stream, const std::string& line) {
  std::fputs((printable(line) + "\n").c_str(), stream);
  std::fflush(stream);
}

std::string formatted(const char* format, ...) {
  std::va_list arguments, again;
  va_start(arguments, format);
  va_copy(again, arguments);
  std::string text(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, format, arguments)), '\0');
  va_end(arguments);
  std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  return text;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace collbench
