#!/usr/bin/env bash
# issue 44's committed measurement, as docs/tune.md gives it (results/tune/README.md); run from the
# repository root after scripts/build.sh; OUT_ROOT: where the tables, rules files and reports go
set -u
out_root=${OUT_ROOT:-results/tune}
mkdir -p "$out_root"
export OMPI_MCA_pml=ob1
for np in ${NPS:-2 4}; do
  for coll in ${COLLS:-all_reduce broadcast all_gather}; do
    out=$out_root/$coll-np$np
    echo "$coll np $np tune before: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >> "$out_root/load.txt"
    build/bin/collbench tune --np "$np" --mpi-algorithms all --runs 10 --max-runs 12 --out "$out" --format markdown -- "build/bin/${coll}_perf" -b 8 -e 16M -f 4 --placement out -n 20 -w 5 > "$out.decision.md" 2> "$out.decision.err"
    echo "$coll np $np tune exit $? after: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >> "$out_root/load.txt"
    build/bin/collbench tune --verify "$out/ompi-rules.conf" --np "$np" --runs 10 --max-runs 12 --out "$out-verify" --format markdown -- "build/bin/${coll}_perf" -b 8 -e 16M -f 4 --placement out -n 20 -w 5 > "$out.verify.md" 2> "$out.verify.err"
    echo "$coll np $np verify exit $? after: $(date -u +%H:%M:%S) $(uptime | sed 's/.*load/load/')" >> "$out_root/load.txt"
  done
done
echo "done" >> "$out_root/load.txt"
