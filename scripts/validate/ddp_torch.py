#!/usr/bin/env python3
"""Real PyTorch DistributedDataParallel steps, timed as ddp_step_perf times its own (issue 23).

Run by scripts/validate/ddp_vs_torch.sh; usable alone. Needs torch (a venv from PyPI, outside the
repository); collbench itself never needs it, and CI does not run this.

    PYTHON ddp_torch.py --model linear --layers 8 --hidden 2048 --batch 16 --bucket-cap-mb 25
    PYTHON ddp_torch.py --model resnet50 --batch 2 --image 224 --bucket-cap-mb default
    python3 ddp_torch.py --write-model FILE --layers 8 --hidden 2048   (no torch needed)

Two processes (torch.multiprocessing spawn; --world-size), gloo over 127.0.0.1 on a free port,
torch.set_num_threads(--threads) in each. The model: --layers x nn.Linear(H, H) with bias in an
nn.Sequential (no activation between them), or torchvision's resnet50 (weights=None). Each rank
has its own fixed random input (batch x H, or batch x 3 x image x image); loss = output.sum().

A step (timed): forward through the DDP module, the loss, loss.backward(), which returns only
after DDP's reducer has all-reduced (average) every bucket and copied the results back into
.grad. Before each step, outside the timing: model.zero_grad(set_to_none=True) (as
optimizer.zero_grad() does by default, so autograd's AccumulateGrad hands its freshly allocated
gradient over with no add; --zero-grad zeros keeps the tensors and adds into them) and dist.barrier(), so that the ranks start together (ddp_step_perf: a barrier before each
step). Per step, each rank times its own step (time.perf_counter); the step's time is the slowest
rank's (ddp_step_perf's time_aggregation "max"); median and mean are over the timed steps.

A compute-only step: the same under ddp.no_sync() (forward and backward inside it): no gradient
copies into buckets, no all-reduce. Synchronized and no_sync steps alternate, each after its own
barrier. Exposed communication = median step - median compute-only step.

Not in the step: the optimizer. With --optimizer-step (default on) a plain SGD step
(lr 0, so the weights stay as they are; the arithmetic still runs) follows each synchronized step,
timed on its own and reported as optimizer_us; ddp_step_perf does not model it.

Buckets: DDP rebuilds its buckets after the first backward pass in the order the gradients
became ready; they are read after the warm-up from ddp._get_ddp_logging_data()
("rebuilt_bucket_sizes": bytes per bucket, "rebuilt_per_bucket_param_indices": indices into
model.parameters()), in the order the buckets are all-reduced.

Per-bucket cost from inside DDP (--profile-buckets N, issue 46 item 3): after the timed steps, N
more synchronized steps run under torch.profiler (outside every timing above). In each, the
reducer's call of each bucket's all-reduce (`c10d::allreduce_`, on the thread running backward)
is paired in order with gloo's execution of it (`gloo:all_reduce`, on a ProcessGroupGloo worker
thread). Per bucket, the slowest rank's: dispatch_us (the call to gloo's start: queueing and
hand-off), gloo_us (gloo's all-reduce itself) and call_to_done_us (the call to gloo's end), each
the median over the N steps, in "bucket_cost". The profiler's own recording is in these figures.

Output: one JSON line on stdout (rank 0); everything else on stderr. Exit 0 on success.
"""
import argparse
import json
import os
import socket
import statistics
import sys
import time

MIB = 1024 * 1024


def linear_model_csv(layers, hidden):
    """ddp_step_perf's model file for the torch model below: one line per nn.Linear(H, H), its
    weight and bias as two tensors in registration order; shapes and elementwise bytes as
    src/workloads/ddp/presets/make_presets.py writes a dense layer (forward B*1xHxH, input
    gradient B*1xHxH, weight gradient HxHxB*1; bias add 4 B x H per sample each way)."""
    h = hidden
    lines = [
        f"# model: linear-{layers}x{h}",
        f"# source: scripts/validate/ddp_torch.py: nn.Sequential of {layers} x nn.Linear({h}, {h}) with bias, no activation",
        f"# {layers * (h * h + h)} parameters in {2 * layers} tensors (weight {h}x{h}, bias {h} per layer).",
        "layer,params,forward,input_grad,weight_grad,forward_bytes,backward_bytes",
    ]
    for i in range(layers):
        lines.append(f"{i},{i}.weight:{h * h};{i}.bias:{h},B*1x{h}x{h},B*1x{h}x{h},{h}x{h}xB*1,B*{4 * h},B*{4 * h}")
    return "\n".join(lines) + "\n"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stats(values):
    values = sorted(values)
    return {
        "median": statistics.median(values),
        "mean": statistics.fmean(values),
        "min": values[0],
        "max": values[-1],
        "stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
    }


def profile_bucket_costs(step, steps, buckets, world_size):
    """Runs `steps` synchronized steps under torch.profiler; returns per bucket the slowest rank's
    [dispatch_us, gloo_us, call_to_done_us] per step (a steps x buckets x 3 list), or a string
    saying why the events could not be paired."""
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            step(True)
    calls = sorted((e for e in prof.events() if e.name == "c10d::allreduce_"), key=lambda e: e.time_range.start)
    runs = sorted((e for e in prof.events() if e.name == "gloo:all_reduce"), key=lambda e: e.time_range.start)
    expected = steps * buckets
    ok = len(calls) == expected and len(runs) == expected
    mine = torch.zeros(steps, buckets, 3, dtype=torch.float64)
    if ok:
        for i, (call, run) in enumerate(zip(calls, runs)):
            start = call.time_range.start
            mine[i // buckets, i % buckets] = torch.tensor(
                [run.time_range.start - start, run.time_range.end - run.time_range.start, run.time_range.end - start])
    flags = torch.tensor([1.0 if ok else 0.0])
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)
    if flags.item() < 1:
        return f"events not paired on some rank (this rank: {len(calls)} calls, {len(runs)} gloo runs, {expected} expected)"
    gathered = [torch.zeros_like(mine) for _ in range(world_size)]
    dist.all_gather(gathered, mine)
    return torch.stack(gathered).max(dim=0).values.tolist()


def build_model(args):
    import torch

    if args.model == "linear":
        return torch.nn.Sequential(*[torch.nn.Linear(args.hidden, args.hidden, bias=True) for _ in range(args.layers)])
    import torchvision

    return torchvision.models.resnet50(weights=None)


def worker(rank, args, port):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(args.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=args.world_size)
    torch.manual_seed(1234)  # the same initial weights on every rank (DDP broadcasts rank 0's anyway)
    model = build_model(args)
    kwargs = {}
    if args.broadcast_buffers == "off":  # on: left to DDP's default (broadcast every forward)
        kwargs["broadcast_buffers"] = False
    if args.bucket_cap_mb != "default":
        cap = float(args.bucket_cap_mb)
        kwargs["bucket_cap_mb"] = int(cap) if cap.is_integer() else cap
    ddp = DDP(model, **kwargs)
    torch.manual_seed(1000 + rank)  # each rank its own data, as data parallelism has
    if args.model == "linear":
        x = torch.randn(args.batch, args.hidden)
    else:
        x = torch.randn(args.batch, 3, args.image, args.image)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0) if args.optimizer_step == "on" else None

    def step(sync):
        ddp.zero_grad(set_to_none=args.zero_grad == "none")
        dist.barrier()
        start = time.perf_counter()
        if sync:
            ddp(x).sum().backward()
        else:
            with ddp.no_sync():
                ddp(x).sum().backward()
        elapsed = time.perf_counter() - start
        opt = 0.0
        if sync and optimizer is not None:
            start = time.perf_counter()
            optimizer.step()
            opt = time.perf_counter() - start
        return elapsed * 1e6, opt * 1e6

    for _ in range(max(args.warmup, 2)):  # 2 at least: the buckets are rebuilt after the first
        step(True)
        step(False)
    synced, compute, opt = [], [], []
    for _ in range(args.iters):
        s, o = step(True)
        c, _ = step(False)
        synced.append(s)
        compute.append(c)
        opt.append(o)

    # Per step, the slowest rank.
    mine = torch.tensor([synced, compute, opt], dtype=torch.float64)
    gathered = [torch.zeros_like(mine) for _ in range(args.world_size)]
    dist.all_gather(gathered, mine)
    worst = torch.stack(gathered).max(dim=0).values.tolist()
    logging_data = ddp._get_ddp_logging_data()
    sizes = [int(v) for v in str(logging_data.get("rebuilt_bucket_sizes", "")).replace(" ", "").split(",") if v]
    bucket_cost = None
    if args.profile_buckets > 0:
        costs = profile_bucket_costs(step, args.profile_buckets, len(sizes), args.world_size)
        if isinstance(costs, str):
            bucket_cost = {"error": costs}
        else:
            bucket_cost = {
                "steps": args.profile_buckets,
                "estimator": "per bucket and step the slowest rank, then the median over the profiled steps",
                "buckets": [
                    {
                        "index": b,
                        "bytes": sizes[b],
                        "dispatch_us": statistics.median(costs[s][b][0] for s in range(args.profile_buckets)),
                        "gloo_us": statistics.median(costs[s][b][1] for s in range(args.profile_buckets)),
                        "call_to_done_us": statistics.median(costs[s][b][2] for s in range(args.profile_buckets)),
                    }
                    for b in range(len(sizes))
                ],
            }
    dist.barrier()
    if rank == 0:
        indices = [[int(i) for i in group.split()] for group in str(logging_data.get("rebuilt_per_bucket_param_indices", "")).split(",") if group.strip()]
        step_stats, compute_stats = stats(worst[0]), stats(worst[1])
        result = {
            "side": "torch",
            "model": args.model,
            "layers": args.layers if args.model == "linear" else None,
            "hidden": args.hidden if args.model == "linear" else None,
            "image": args.image if args.model == "resnet50" else None,
            "batch": args.batch,
            "bucket_cap_mb": args.bucket_cap_mb,
            "world_size": args.world_size,
            "threads": torch.get_num_threads(),
            "iters": args.iters,
            "warmup": max(args.warmup, 2),
            "step_us": step_stats,
            "compute_us": compute_stats,
            "exposed_us": step_stats["median"] - compute_stats["median"],
            "exposed_mean_us": step_stats["mean"] - compute_stats["mean"],
            "optimizer_us": stats(worst[2]) if optimizer is not None else None,
            "time_aggregation": "max over ranks per step",
            "has_rebuilt_buckets": int(logging_data.get("has_rebuilt_buckets", 0)),
            "bucket_cap_bytes": int(logging_data.get("bucket_cap_bytes", 0)),
            "buckets": len(sizes),
            "bucket_bytes": sizes,
            "bucket_param_indices": indices,
            "params": [[name, p.numel()] for name, p in model.named_parameters()],
            "ddp_logging_ns": {k: v for k, v in logging_data.items() if isinstance(v, int) and k.startswith("avg_")},
            "broadcast_buffers": args.broadcast_buffers,
            "zero_grad": args.zero_grad,
            "bucket_cost": bucket_cost,
            "samples_step_us": worst[0],
            "samples_compute_us": worst[1],
            "torch_version": torch.__version__,
            "blas": "MKL" if torch.backends.mkl.is_available() else "other",
            "mkldnn": torch.backends.mkldnn.is_available(),
        }
        print(json.dumps(result), flush=True)
    dist.barrier()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["linear", "resnet50"], default="linear")
    parser.add_argument("--layers", type=int, default=8, help="linear: number of nn.Linear(H, H) (default 8)")
    parser.add_argument("--hidden", type=int, default=2048, help="linear: H (default 2048)")
    parser.add_argument("--image", type=int, default=224, help="resnet50: image side (default 224, as ddp_step_perf's preset)")
    parser.add_argument("--batch", type=int, default=16, help="samples per rank per step (default 16)")
    parser.add_argument("--bucket-cap-mb", default="default", help='DDP bucket_cap_mb, or "default": not passed to DDP')
    parser.add_argument("--iters", type=int, default=10, help="timed steps of each kind (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps of each kind (default 2, at least 2)")
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads per rank (default 1)")
    parser.add_argument("--optimizer-step", choices=["on", "off"], default="on", help="time an SGD step after each synchronized step, apart")
    parser.add_argument("--broadcast-buffers", choices=["on", "off"], default="on", help="DDP broadcast_buffers (default on, DDP's default)")
    parser.add_argument("--zero-grad", choices=["none", "zeros"], default="none",
                        help="before each step: none = zero_grad(set_to_none=True), optimizer.zero_grad()'s default (autograd hands "
                             "fresh gradient tensors over); zeros = set_to_none=False (gradients kept and added into in place)")
    parser.add_argument("--profile-buckets", type=int, default=0, metavar="N",
                        help="after the timed steps, N more under torch.profiler: each bucket's all-reduce cost inside DDP (default 0: none)")
    parser.add_argument("--write-model", metavar="FILE", help="write ddp_step_perf's model file for --layers x Linear(--hidden) and exit")
    args = parser.parse_args()
    if args.write_model:
        with open(args.write_model, "w") as out:
            out.write(linear_model_csv(args.layers, args.hidden))
        return 0
    if args.bucket_cap_mb != "default":
        try:
            if float(args.bucket_cap_mb) <= 0:
                raise ValueError
        except ValueError:
            parser.error('--bucket-cap-mb: a positive number or "default"')
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(args.threads)
    import torch.multiprocessing as mp

    mp.spawn(worker, args=(args, free_port()), nprocs=args.world_size, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
