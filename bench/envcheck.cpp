// envcheck: see src/compute/ and `envcheck --help`.
#include "compute/programs.h"

int main(int argc, char** argv) { return collbench::compute::run_envcheck(argc, argv); }
