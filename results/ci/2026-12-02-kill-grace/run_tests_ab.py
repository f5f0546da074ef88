#!/usr/bin/env python3
"""Runs the named ctest tests one after another, once per setting of Open MPI's
odls_base_sigkill_timeout, and prints each test's wall seconds and exit code per setting.

usage: run_tests_ab.py BUILD_DIR NAMES_FILE SETTING... [--bin OTHER_BIN_DIR]
  SETTING: a number (exported as OMPI_MCA_odls_base_sigkill_timeout, which the test scripts keep
  as the caller's) or "default" (the scripts' own). --bin runs other binaries than BUILD_DIR/bin
  (seconds-per-test.txt: main's, in a copy). OMPI_MCA_pml=ob1 as scripts/test.sh sets it.
"""
import json, os, subprocess, sys, time

args = sys.argv[1:]
other_bin = None
if "--bin" in args:
    i = args.index("--bin"); other_bin = args[i + 1]; del args[i:i + 2]
build, names_file, settings = args[0], args[1], args[2:]
listing = json.loads(subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                                    stdout=subprocess.PIPE).stdout)
tests = {t["name"]: t for t in listing["tests"]}
bin_dir = os.path.join(os.path.abspath(build), "bin")
total = {s: 0.0 for s in settings}
for name in (line.strip() for line in open(names_file) if line.strip()):
    test = tests[name]
    command = [x.replace(bin_dir, other_bin) if other_bin else x for x in test["command"]]
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    row = []
    for setting in settings:
        env = dict(os.environ, OMPI_MCA_pml="ob1")
        env.update(kv.split("=", 1) for kv in props.get("ENVIRONMENT", []))
        if setting != "default":
            env["OMPI_MCA_odls_base_sigkill_timeout"] = setting
        start = time.time()
        run = subprocess.run(command, env=env, cwd=props.get("WORKING_DIRECTORY", build),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        seconds = time.time() - start
        total[setting] += seconds
        row.append(f"{seconds:.2f} rc{run.returncode}")
        if run.returncode:
            print(run.stdout.decode(errors="replace")[-800:])
    print(name, *row, sep="\t", flush=True)
print("# total", *(f"{total[s]:.2f}" for s in settings), sep="\t")
