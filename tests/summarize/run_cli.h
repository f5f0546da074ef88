// Runs collbench's command line in-process for a test, its output captured; returns the exit code.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "summarize/cli/cli.h"

namespace collbench::summarize {

inline int run_cli(std::vector<std::string> args, std::string* err = nullptr, std::string* out = nullptr) {
  args.insert(args.begin(), "collbench");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = run_command_line(static_cast<int>(argv.size()), argv.data());
  const std::string printed = ::testing::internal::GetCapturedStdout();
  const std::string captured = ::testing::internal::GetCapturedStderr();
  if (err) *err = captured;
  if (out) *out = printed;
  return code;
}

}  // namespace collbench::summarize
