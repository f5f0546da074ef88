#!/usr/bin/env bash
# usage: phases.sh LOG: the seconds at which each part of .ci/run began and ended, from a log whose
# every line starts with the seconds since .ci/run started (as the runs here were recorded).
log=$1
awk '
/setup: done|setup: all .* already installed/ && !s {print "setup ends", $1; s=1}
/Building CXX object/ && !b {print "Release build starts", $1; b=1}
/Test project .*\/build$/ {print "ctest starts (build done)", $1}
/Test project .*\/build-sanitize$/ && !z {print "sanitizer tests start (builds done)", $1; z=1}
/Total Test time/ {print "a ctest ends", $1, "(" $0 ")"}
/fuzz_report clean/ {print "fuzzer done", $1}
/sanitize: unit and mpi tests clean/ {print "sanitizer tests done", $1}
/Elapsed \(wall clock\)/ {print "end", $1, $0}
/User time|System time/ {print $0}
' "$log"
