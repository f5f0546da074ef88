// envcheck: see src/workloads/envcheck/ and `envcheck --help`.
#include "workloads/envcheck/envcheck_program.h"

int main(int argc, char** argv) { return collbench::compute::run_envcheck(argc, argv); }
