// copy_perf's entry point (its main: main.cpp); returns the exit code (core/error.h).
#pragma once

namespace collbench::compute {

int run_copy_perf(int argc, char** argv);

}  // namespace collbench::compute
