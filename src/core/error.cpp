#include "core/error.h"

#include <unistd.h>

#include <cstring>

namespace collbench {

std::string located_message(const char* file, int line, const std::string& message) {
  // Keep only the path below src/ so messages do not carry machine-specific build paths.
  const char* shown = std::strstr(file, "src/");
  return std::string(shown ? shown : file) + ":" + std::to_string(line) + ": " + message;
}

std::string this_host() {
  char name[256] = {0};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace collbench
