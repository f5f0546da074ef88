#include "core/error.h"

#include <algorithm>
#include <cstring>

namespace collbench {

std::string located_message(const char* file, int line, const std::string& message) {
  // Keep only the path below src/ so messages do not carry machine-specific build paths.
  const char* shown = std::strstr(file, "src/");
  return std::string(shown ? shown : file) + ":" + std::to_string(line) + ": " + message;
}

std::string one_line_text(const std::string& text, std::size_t max_bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_bytes) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    // U+0080..U+009F (C1 controls, CSI among them) are 0xc2 0x80..0x9f in UTF-8.
    const bool c1 = byte == 0xc2 && i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xe0) == 0x80;
    if (byte == '\n') out += "\\n";
    else if (byte == '\r') out += "\\r";
    else if (byte == '\t') out += "\\t";
    else if (byte < 0x20 || byte == 0x7f || c1) {
      const auto escaped = c1 ? static_cast<unsigned char>(text[++i]) : byte;
      out += c1 ? "\\u00" : "\\x";
      out += digits[escaped >> 4];
      out += digits[escaped & 0xf];
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

}  // namespace collbench
