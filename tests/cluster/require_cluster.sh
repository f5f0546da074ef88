# Sourced by the cluster tests once `source_dir` and `bin_dir` are set: scripts/cluster/lib.sh, then
# exit 77 (skipped) with one line where the machine cannot host the simulation (not root, no `ip
# netns`, no TUN, no mpirun), and exit 1 where the forwarder of the shaped links was not built.
# shellcheck source=../../scripts/cluster/lib.sh
source "$source_dir/scripts/cluster/lib.sh"
why=$(cluster_unavailable mpirun unshare timeout tc)
[ -z "$why" ] || { echo "SKIP: simulated cluster: $why"; exit 77; }
[ -x "$bin_dir/tun_forwarder" ] || { echo "FAIL: $bin_dir/tun_forwarder was not built"; exit 1; }
