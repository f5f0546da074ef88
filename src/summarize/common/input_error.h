// Bad input to the summarizer (missing or malformed report, wrong mix of reports, bad flags).
// The command line turns it into one line on stderr and exit 2.
#pragma once

#include <stdexcept>
#include <string>

#include "core/error.h"
#include "core/input_file.h"

namespace collbench::summarize {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input file through the one bounded reader (core/input_file.h), its refusal as InputError.
inline std::string read_input(const std::string& path, const InputLimits& limits) {
  try {
    return read_input_file(path, limits);
  } catch (const UsageError& e) {
    throw InputError(e.what());
  }
}

}  // namespace collbench::summarize
