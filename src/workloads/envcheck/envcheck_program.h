// envcheck's entry point (its main: main.cpp); returns the exit code (core/error.h).
#pragma once

namespace collbench::compute {

int run_envcheck(int argc, char** argv);

}  // namespace collbench::compute
