#include "core/error.h"

#include <cstring>

namespace collbench {

std::string located_message(const char* file, int line, const std::string& message) {
  // Keep only the path below src/ so messages do not carry machine-specific build paths.
  const char* shown = std::strstr(file, "src/");
  return std::string(shown ? shown : file) + ":" + std::to_string(line) + ": " + message;
}

}  // namespace collbench
