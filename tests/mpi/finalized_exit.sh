# shellcheck shell=bash
# Sourced by the runners of launches whose every rank leaves through MPI_Finalize (run_perf.sh,
# run_bitwise.sh, run_gloo.sh, run_compute.sh, run_ddp.sh, run_pt2pt.sh, and the reliability
# checks of options, report paths and memory that every rank agrees on).
#
# MPI_Finalize waits for every rank, so rank 0's table, footer, error line and report are written
# before any rank exits. When the exit code is not 0 (3 for wrong results; 2 or 1 where every rank
# agreed on the error), Open MPI still ends the ranks already on their way out and sleeps
# odls_base_sigkill_timeout (1 s) once or twice doing it: 1-2 s of nothing a launch (issue 45).
# The tests of killed, stopped and interrupted ranks and of timeouts do not source this: there a
# rank still running when another fails is the point, and it keeps Open MPI's usual grace.
# A setting of the caller's wins.
export OMPI_MCA_odls_base_sigkill_timeout="${OMPI_MCA_odls_base_sigkill_timeout:-0}"
