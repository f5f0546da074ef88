// Bad input to the summarizer (missing or malformed report, wrong mix of reports, bad flags).
// The command line turns it into one line on stderr and exit 2.
#pragma once

#include <stdexcept>

namespace collbench::summarize {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace collbench::summarize
