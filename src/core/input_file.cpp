#include "core/input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "core/error.h"
#include "core/flag_values.h"
#include "core/printable.h"

namespace collbench {
namespace {

// Closes the descriptor on every path out, a throw included.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string describe_cap(std::uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + units[unit];
}

std::string read_input_file(const std::string& path, const InputLimits& limits) {
  const std::string named = std::string(limits.kind) + " '" + printable(path) + "'";
  // O_NONBLOCK is not set: a FIFO whose writer has not started is waited for, as `cat` would.
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) throw UsageError(named + ": cannot be read: " + std::strerror(errno));
  std::string text;
  std::uint64_t line_bytes = 0;
  int line_number = 1;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(file.get(), chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw UsageError(named + ": cannot be read: " + std::strerror(errno));
    if (got == 0) break;
    if (text.size() + static_cast<std::uint64_t>(got) > limits.max_bytes) {
      throw UsageError(named + " is larger than the " + describe_cap(limits.max_bytes) + " cap (is it the right file?)");
    }
    for (ssize_t i = 0; i < got; ++i) {
      if (chunk[i] == '\n') {
        line_bytes = 0;
        ++line_number;
      } else if (++line_bytes > limits.max_line_bytes) {
        throw UsageError(named + ": line " + std::to_string(line_number) + " is longer than the " +
                         describe_cap(limits.max_line_bytes) + " cap for a line");
      }
    }
    text.append(chunk, static_cast<std::size_t>(got));
  }
  return with_lf_line_ends(std::move(text), named, limits.max_line_bytes < limits.max_bytes);
}

std::string with_lf_line_ends(std::string text, const std::string& named, bool line_oriented) {
  if (text.find('\r') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  int line_number = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line_number;
    if (text[i] != '\r') {
      out += text[i];
    } else if (i + 1 < text.size() && text[i + 1] == '\n') {
      continue;  // CR LF: Windows' line end, read as LF
    } else if (line_oriented) {
      throw UsageError(named + ": line " + std::to_string(line_number) +
                       " holds a carriage return (CR) that ends no line (classic Mac line ends?); save it with LF or CR LF line ends");
    } else {
      out += text[i];  // JSON: white space between values; inside a string the parser refuses it
    }
  }
  return out;
}

void for_each_csv_row(const std::string& text, const std::string& header, const CsvRow& on_row,
                      const std::function<void(const std::string& comment)>& on_comment) {
  std::istringstream lines(text);
  std::string line;
  bool data_seen = false;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == '#') {
      if (on_comment) on_comment(line);
      continue;
    }
    if (line.empty()) continue;
    const bool is_header = !data_seen && !header.empty() && line.rfind(header, 0) == 0;
    data_seen = true;
    if (is_header) continue;
    on_row(number, split_list(line), line);
  }
}

}  // namespace collbench
