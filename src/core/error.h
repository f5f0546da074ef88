// Errors and exit codes shared by every executable.
//
// Library calls are checked at the boundary (CB_MPI_CHECK, later CB_CUDA_CHECK, CB_NCCL_CHECK);
// they throw an Error carrying where it happened, and main turns it into one line and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace collbench {

// The exit codes are a contract with users and CI scripts: never renumber them.
enum class ExitCode : int {
  kOk = 0,
  kRuntimeError = 1,
  kUsage = 2,          // bad flags, sizes, types, or a bad input file
  kWrongResults = 3,   // a correctness check found wrong elements
  kTimeout = 4,        // the watchdog fired
};

// A failure of the machine or a library (allocation, MPI, CUDA, NCCL). May happen on one rank only,
// so the caller must abort the whole job rather than return.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ExitCode code = ExitCode::kRuntimeError)
      : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad input. Raised identically on every rank (every rank parses the same argv), so all ranks can
// leave cleanly with exit 2; under an MPI launcher only rank 0 prints, without one every rank does
// (nobody gathers rank 0's line for the others).
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// "file:line: message" for errors raised by the CB_*_CHECK macros.
std::string located_message(const char* file, int line, const std::string& message);

// This machine's host name (gethostname), for the messages and records that say where a process runs.
std::string this_host();

}  // namespace collbench
