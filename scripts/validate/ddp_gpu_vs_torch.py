#!/usr/bin/env python3
"""ddp_step_perf's resnet50 preset next to real PyTorch DDP on one GPU (issue 42, item 6).

usage: python3 scripts/validate/ddp_gpu_vs_torch.py [--bin build-gpu/bin] [--out DIR] [--batch 32]
                                                   [--dtypes bfloat16,float32] [--iters 20] [--warmup 5]

Meant for a lent GPU machine whose image has PyTorch and torchvision (the H200's does), in about
90 s. CI never runs it; collbench never needs torch.

torch side, one process, one rank, NCCL, the GPU torch sees first: torchvision's resnet50 with
random weights (weights=None), in each --dtypes (the model and its input in that dtype, so the
gradients travel in it too: bfloat16 matches ddp_step_perf --grad-dtype bfloat16), batch 32 of
224x224, DDP with its defaults (bucket_cap_mb 25). A step is forward, loss = output.sum() in
float32 and backward, which returns once DDP's reducer has all-reduced every bucket; the host
clock around it, closed by torch.cuda.synchronize(). A compute-only step is the same under
ddp.no_sync(). They alternate after the warm-up, as scripts/validate/ddp_torch.py does on the CPU;
exposed communication = median step - median compute-only step.

A profile pass follows (not timed as steps): each layer of ddp_step_perf's resnet50 preset
(src/workloads/ddp/presets/resnet50.csv, the torchvision module names) timed alone, forward and
backward, with torch.cuda.synchronize() around it, median of 5 steps: DIR/profile-<dtype>.csv
(layer,forward_us,backward_us), ddp_step_perf's --compute-profile format. Full backward hooks
need the ReLUs and the residual adds out of place and the input to need a gradient, so the
profile's model differs from the timed one in that; the ReLUs and the residual adds belong to no
preset layer, so their time is in no line (the output prints the profile's sum beside torch's
compute).

ddp_step_perf side, one rank as a plain process (env bootstrap, Gloo, no MPI needed): the
resnet50 preset at the same batch and gradient dtype, --overlap on,off, twice: with its own
synthetic compute (OpenBLAS GEMMs on this machine's CPU: -n 3 -w 1, it is slow), and with
--compute-profile from the profile pass (-n/-w as torch's). Reports in DIR; their figures are read
as scripts/validate/ddp_vs_torch_table.py reads them (step: the overlap-on row's p50; compute: the
overlap-off row's forward + backward less its gradient copies; exposed = step - compute).

Output: a Markdown table on stdout (per dtype: torch's step, compute and exposed communication in
ms, each ddp_step_perf run's, and ddp_step_perf / torch for each), DIR/torch-<dtype>.json.
Exit 0; 1 when a run fails; 2 with one line on stderr when torch, torchvision, a GPU or
ddp_step_perf is missing, or on bad usage.
"""
import argparse
import csv
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PRESET = os.path.join(ROOT, "src", "workloads", "ddp", "presets", "resnet50.csv")


def fail(message, code=2):
    print(f"ddp_gpu_vs_torch.py: error: {message}", file=sys.stderr)
    sys.exit(code)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def preset_layers():
    with open(PRESET) as handle:
        rows = [line for line in handle if line.strip() and not line.startswith("#")]
    return [row["layer"] for row in csv.DictReader(rows)]


def torch_side(torch, torchvision, dtype_name, args):
    """Step and compute-only medians (us) of real DDP, then the per-layer profile."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    dtype = getattr(torch, dtype_name)
    torch.manual_seed(1234)
    model = torchvision.models.resnet50(weights=None).cuda().to(dtype)
    ddp = DDP(model, device_ids=[torch.cuda.current_device()])
    data = torch.randn(args.batch, 3, 224, 224, device="cuda", dtype=dtype)

    def step(sync):
        ddp.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        start = time.perf_counter()
        if sync:
            ddp(data).float().sum().backward()
        else:
            with ddp.no_sync():
                ddp(data).float().sum().backward()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) * 1e6

    for _ in range(max(args.warmup, 2)):  # 2 at least: DDP rebuilds its buckets after the first
        step(True)
        step(False)
    synced, compute = [], []
    for _ in range(args.iters):
        synced.append(step(True))
        compute.append(step(False))
    result = {"dtype": dtype_name, "batch": args.batch, "iters": args.iters, "torch": torch.__version__,
              "device": torch.cuda.get_device_name(), "step_us": statistics.median(synced),
              "compute_us": statistics.median(compute), "samples_step_us": synced, "samples_compute_us": compute}
    result["exposed_us"] = result["step_us"] - result["compute_us"]
    del ddp, model
    result["profile"] = layer_profile(torch, torchvision, dtype, args)
    return result


def bottleneck_out_of_place(block, x):
    out = block.relu(block.bn1(block.conv1(x)))
    out = block.relu(block.bn2(block.conv2(out)))
    out = block.bn3(block.conv3(out))
    shortcut = block.downsample(x) if block.downsample is not None else x
    return block.relu(out + shortcut)


def layer_profile(torch, torchvision, dtype, args):
    """{layer: (forward_us, backward_us)}: each preset layer timed alone, median over 5 steps."""
    torch.manual_seed(1234)
    model = torchvision.models.resnet50(weights=None).cuda().to(dtype)
    # A full backward hook wraps its module's output, which nothing may then change in place: the
    # ReLUs run out of place, and each bottleneck adds its shortcut out of place (the same
    # arithmetic as torchvision's block, whose `out += identity` writes into bn3's output).
    for module in model.modules():
        if isinstance(module, torch.nn.ReLU):
            module.inplace = False
        if isinstance(module, torchvision.models.resnet.Bottleneck):
            module.forward = types.MethodType(bottleneck_out_of_place, module)
    modules = dict(model.named_modules())
    layers = [name for name in preset_layers() if name in modules]
    times = {name: ([], []) for name in layers}
    started = {}

    def clock():
        torch.cuda.synchronize()
        return time.perf_counter()

    for name in layers:
        module = modules[name]
        module.register_forward_pre_hook(lambda _m, _i, name=name: started.__setitem__(("f", name), clock()))
        module.register_forward_hook(lambda _m, _i, _o, name=name: times[name][0].append((clock() - started[("f", name)]) * 1e6))
        module.register_full_backward_pre_hook(lambda _m, _g, name=name: started.__setitem__(("b", name), clock()))
        module.register_full_backward_hook(
            lambda _m, _gi, _go, name=name: times[name][1].append((clock() - started[("b", name)]) * 1e6))
    data = torch.randn(args.batch, 3, 224, 224, device="cuda", dtype=dtype, requires_grad=True)
    for repetition in range(6):
        if repetition == 1:  # the first pass warms up
            for forward, backward in times.values():
                forward.clear()
                backward.clear()
        model.zero_grad(set_to_none=True)
        model(data).float().sum().backward()
    return {name: (statistics.median(f) if f else 0.0, statistics.median(b) if b else 0.0) for name, (f, b) in times.items()}


def run_ddp_step_perf(args, dtype_name, report, extra):
    grad_dtype = "bfloat16" if dtype_name == "bfloat16" else "float32"
    env = dict(os.environ, RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", LOCAL_WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()))
    command = [os.path.join(args.bin, "ddp_step_perf"), "--model", "resnet50", "--batch", str(args.batch),
               "--grad-dtype", grad_dtype, "--overlap", "on,off", "-J", report] + extra
    with open(report + ".log", "w") as log:
        log.write("$ " + " ".join(command) + "\n")
        log.flush()
        code = subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    return code


def main():
    parser = argparse.ArgumentParser(description="ddp_step_perf's resnet50 next to torch DDP on one GPU")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build-gpu", "bin"))
    parser.add_argument("--out", default=None, help="folder for the reports and profiles (default: a new temporary one)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.error = fail  # one line, exit 2, like every other bad input here
    args = parser.parse_args()
    dtypes = args.dtypes.split(",")
    if any(d not in ("bfloat16", "float32") for d in dtypes) or args.batch < 1 or args.iters < 1 or args.warmup < 0:
        fail("--dtypes takes bfloat16 and float32; --batch and --iters are positive, --warmup not negative")
    if not os.access(os.path.join(args.bin, "ddp_step_perf"), os.X_OK):
        fail(f"no ddp_step_perf in {args.bin} (--bin: a collbench build's bin folder)")
    try:
        import torch
        import torch.distributed as dist
        import torchvision
    except ImportError as error:
        fail(f"torch and torchvision are needed here: {error}")
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        fail("no CUDA GPU visible to torch")
    out = args.out or tempfile.mkdtemp(prefix="ddp-gpu-")
    os.makedirs(out, exist_ok=True)

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1)
    spec = importlib.util.spec_from_file_location("ddp_vs_torch_table", os.path.join(HERE, "ddp_vs_torch_table.py"))
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)

    failed = 0
    lines = ["| dtype | run | step ms | compute ms | exposed ms | step ratio | compute ratio | exposed ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for dtype_name in dtypes:
        mine = torch_side(torch, torchvision, dtype_name, args)
        profile_path = os.path.join(out, f"profile-{dtype_name}.csv")
        with open(profile_path, "w") as handle:
            handle.write("layer,forward_us,backward_us\n")
            for name, (forward, backward) in mine["profile"].items():
                handle.write(f"{name},{forward:.3f},{backward:.3f}\n")
        profiled = sum(f + b for f, b in mine["profile"].values())
        with open(os.path.join(out, f"torch-{dtype_name}.json"), "w") as handle:
            json.dump(mine, handle)
        lines.append(f"| {dtype_name} | torch DDP ({mine['torch']}, {mine['device']}) | {mine['step_us'] / 1e3:.3f} | "
                     f"{mine['compute_us'] / 1e3:.3f} | {mine['exposed_us'] / 1e3:.3f} | 1 | 1 | 1 |")
        for label, name, extra in (("ddp_step_perf, synthetic compute on the CPU", "synthetic", ["-n", "3", "-w", "1"]),
                                   ("ddp_step_perf, --compute-profile from torch", "profile",
                                    ["-n", str(args.iters), "-w", str(args.warmup), "--compute-profile", profile_path])):
            report = os.path.join(out, f"ddp_step_perf-{name}-{dtype_name}.json")
            if os.path.exists(report):
                os.remove(report)
            code = run_ddp_step_perf(args, dtype_name, report, extra)
            if code != 0 or not os.path.exists(report):
                failed += 1
                lines.append(f"| {dtype_name} | {label} | exit {code}: see {report}.log | | | | | |")
                continue
            theirs = table.read_collbench_result(report, None)
            step, compute = theirs["step_us"]["median"], theirs["compute_us"]["median"]
            exposed = theirs["exposed_us"]
            ratio = lambda a, b: f"{a / b:.3f}" if b > 0 else "–"
            lines.append(f"| {dtype_name} | {label} | {step / 1e3:.3f} | {compute / 1e3:.3f} | {exposed / 1e3:.3f} | "
                         f"{ratio(step, mine['step_us'])} | {ratio(compute, mine['compute_us'])} | "
                         f"{ratio(exposed, mine['exposed_us'])} |")
        lines.append(f"| {dtype_name} | the profile's layers summed | | {profiled / 1e3:.3f} | | | "
                     f"{profiled / mine['compute_us']:.3f} | |")
    dist.destroy_process_group()
    print(f"ResNet-50, batch {args.batch}, one rank; medians; ratio = ddp_step_perf / torch. Files: {out}\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
