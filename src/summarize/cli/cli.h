// The collbench command line: parses arguments, calls the pure functions, prints, picks the exit code.
#pragma once

namespace collbench::summarize {

// Exit codes: 0 ok; 1 a regression (compare), failed points (sweep) or a runtime error; 2 bad
// usage or bad input.
int run_command_line(int argc, char** argv);

}  // namespace collbench::summarize
