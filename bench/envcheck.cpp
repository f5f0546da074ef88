// envcheck: see src/workloads/envcheck/ and `envcheck --help`.
#include "workloads/compute/programs.h"

int main(int argc, char** argv) { return collbench::compute::run_envcheck(argc, argv); }
