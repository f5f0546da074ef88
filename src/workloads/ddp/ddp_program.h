// ddp_step_perf's entry point (its main: main.cpp); returns the exit code.
#pragma once

namespace collbench::ddp {

int run_ddp_step_perf(int argc, char** argv);

}  // namespace collbench::ddp
