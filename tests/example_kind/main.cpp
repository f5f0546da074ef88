// scan_perf: see scan_program.cpp and `scan_perf --help`.
#include "scan_program.h"

int main(int argc, char** argv) { return collbench::scan::run_scan_perf(argc, argv); }
