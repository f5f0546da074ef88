// scan_perf's entry point (its main: main.cpp); returns the exit code (core/error.h).
#pragma once

namespace collbench::scan {

int run_scan_perf(int argc, char** argv);

}  // namespace collbench::scan
