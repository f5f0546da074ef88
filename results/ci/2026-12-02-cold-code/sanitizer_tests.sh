#!/usr/bin/env bash
# The sanitizer test selection of scripts/sanitize.sh (d6fd115), in BUILD at ctest -j J; prints the seconds of its three ctest calls.
# A copy of its ctest lines, not sanitize.sh itself: that configures its folder with its own flags,
# which would turn the -O0-everywhere folder of builds.txt back to -O1.
# usage: sanitizer_tests.sh BUILD J
cd "$1"; j=$2
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
export OMPI_MCA_pml=ob1
s=$(date +%s)
ctest -j $j -L unit 2>&1 | grep -E "tests passed|Total Test|Failed|\*\*\*" ; u=$(date +%s)
ctest -j $j -L mpi -R '\.np[12]$|acceptance|corrupted|singleton|report_exists|bad_usage(\.1|\.after_mpi\.1)?$|reliability\.(fault|options_differ|bad_command\.(np2|58)$)' 2>&1 | grep -E "tests passed|Total Test|Failed|\*\*\*"; m=$(date +%s)
ctest -j $j -L bootstrap -R 'run\.(all_reduce|sendrecv)\.np2|run\.all_gather\.np3|file\.np2|fault\.KILL\.rank2|duplicate_rank|world_size_mismatch|never_fills' 2>&1 | grep -E "tests passed|Total Test|Failed|\*\*\*"; e=$(date +%s)
echo "RESULT $1 j=$j unit $((u-s)) mpi $((m-u)) bootstrap $((e-m)) total $((e-s)) load $(cut -d' ' -f1 /proc/loadavg)"
