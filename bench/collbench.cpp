// collbench: reports in, answers out (tables, scaling, speedup, verdicts, plots), and sweeps.
#include "summarize/cli/cli.h"

int main(int argc, char** argv) { return collbench::summarize::run_command_line(argc, argv); }
