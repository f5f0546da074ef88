#!/usr/bin/env python3
"""Real torch.distributed jobs on the CPU (gloo), recorded with PyTorch's profiler (Kineto
chrome-trace JSON) and its execution-trace observer (Chakra host ET JSON) on every rank (issue 61).
Run by scripts/validate/record_torch_traces.sh; usable alone:

    PYTHON record_torch_traces.py --job ddp|tp|pipeline|gpu-verify --world-size 2 --out DIR [--steps N] [--log-calls]

Jobs (each: warm-up steps outside the profiler, then --steps steps inside it):
  ddp       DistributedDataParallel on a small CNN (2 conv + 2 linear layers), bucket_cap_mb 0.05
            so that the gradients fill several buckets; DIR/ddp.expected.json records the bucket
            sizes DDP itself reports (_get_ddp_logging_data()["rebuilt_bucket_sizes"], bytes, in
            the order DDP all-reduces them) and the model's parameter count.
  tp        a tensor-parallel MLP written with torch.distributed: the input all-gathered
            (all_gather_into_tensor) before a column-parallel layer, the output reduce-scattered
            (reduce_scatter_tensor) after a row-parallel one, forward and backward.
  pipeline  two stages, one per rank of each pair (2k, 2k+1): the first sends its activations
            (send), the second returns the gradient (recv on the first), 2 micro-batches a step.
  gpu-verify one rank: all_reduce, all_gather_into_tensor and broadcast of a few sizes.
Files: DIR/<job>.rank<R>.kineto.json and DIR/<job>.rank<R>.et.json.
"""
import argparse
import json
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 8 * 8, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


def ddp_job(rank, world, args):
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(SmallCnn(), bucket_cap_mb=0.05)
    data = torch.randn(4, 3, 16, 16, generator=torch.Generator().manual_seed(rank))

    def step():
        model.zero_grad(set_to_none=True)
        model(data).sum().backward()

    return step, model


def tp_job(rank, world, args):
    # Sequence-parallel in, tensor-parallel MLP, sequence-parallel out (Megatron's pattern).
    torch.manual_seed(rank)
    hidden, tokens = args.width or 64, 16
    up = nn.Linear(hidden, 4 * hidden // world)
    down = nn.Linear(4 * hidden // world, hidden, bias=False)
    local = torch.randn(tokens // world, hidden, requires_grad=True)

    class GatherTokens(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = torch.empty(x.shape[0] * world, x.shape[1])
            dist.all_gather_into_tensor(out, x.contiguous())
            return out

        @staticmethod
        def backward(ctx, grad):
            out = torch.empty(grad.shape[0] // world, grad.shape[1])
            dist.reduce_scatter_tensor(out, grad.contiguous())
            return out

    class ScatterTokens(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = torch.empty(x.shape[0] // world, x.shape[1])
            dist.reduce_scatter_tensor(out, x.contiguous())
            return out

        @staticmethod
        def backward(ctx, grad):
            out = torch.empty(grad.shape[0] * world, grad.shape[1])
            dist.all_gather_into_tensor(out, grad.contiguous())
            return out

    def step():
        for p in (up.weight, up.bias, down.weight, local):
            p.grad = None
        y = ScatterTokens.apply(down(torch.relu(up(GatherTokens.apply(local)))))
        y.sum().backward()

    return step, None


def pipeline_job(rank, world, args):
    # Pairs of ranks (2k, 2k+1), each a two-stage pipeline: at 2 ranks, rank 0 and rank 1.
    torch.manual_seed(rank)
    first, peer = rank % 2 == 0, rank ^ 1
    width = args.width or 32
    stage = nn.Sequential(nn.Linear(width, width), nn.ReLU()) if first else nn.Linear(width, 1)
    micro_batches, batch = 2, 8

    def step():
        stage.zero_grad(set_to_none=True)
        for _ in range(micro_batches):
            if first:
                out = stage(torch.randn(batch, width))
                dist.send(out.detach(), dst=peer)
                grad = torch.empty_like(out)
                dist.recv(grad, src=peer)
                out.backward(grad)
            else:
                x = torch.empty(batch, width)
                dist.recv(x, src=peer)
                x.requires_grad_(True)
                stage(x).sum().backward()
                dist.send(x.grad, dst=peer)

    return step, None


def gpu_verify_job(rank, world, args):
    tensors = [torch.ones(n) for n in (1024, 65536, 262144)]

    def step():
        for t in tensors:
            dist.all_reduce(t)
            out = torch.empty(t.numel() * world)
            dist.all_gather_into_tensor(out, t)
            dist.broadcast(t, src=0)

    return step, None


JOBS = {"ddp": ddp_job, "tp": tp_job, "pipeline": pipeline_job, "gpu-verify": gpu_verify_job}

# --log-calls: what the job itself issued through torch.distributed's Python functions, in order, as
# collbench names them: [collective, NCCL's count, dtype, group size, peer] (the validation's ground
# truth, scripts/validate/replay_vs_torch.sh). DDP's all-reduces start in C++, below these functions:
# its ground truth is the bucket sizes DDP reports (<job>.expected.json).
CALL_NAMES = {"all_reduce": "all_reduce", "broadcast": "broadcast", "all_gather_into_tensor": "all_gather",
              "reduce_scatter_tensor": "reduce_scatter", "send": "send", "recv": "recv"}


def log_calls(calls):
    def wrap(name, function):
        def logged(*args, **kwargs):
            tensor = args[1] if name in ("all_gather_into_tensor",) else args[0]
            peer = kwargs.get("dst", kwargs.get("src", args[1] if name in ("send", "recv") and len(args) > 1 else -1))
            dtype = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
                     torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32"}.get(tensor.dtype, str(tensor.dtype))
            calls.append([CALL_NAMES[name], tensor.numel(), dtype, dist.get_world_size(), peer])
            return function(*args, **kwargs)
        return logged
    for name in CALL_NAMES:
        setattr(dist, name, wrap(name, getattr(dist, name)))


def run(rank, world, port, args):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    step, ddp = JOBS[args.job](rank, world, args)
    for _ in range(args.warmup):
        step()
    dist.barrier()
    # Relative names: the profiler records the path it exports to ("traceName"), and committed
    # traces must not carry this machine's folders.
    os.chdir(args.out)
    prefix = f"{args.job}.rank{rank}"
    calls = []
    if args.log_calls:
        log_calls(calls)
    et = ExecutionTraceObserver().register_callback(prefix + ".et.json")
    step_seconds = []
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, execution_trace_observer=et) as prof:
        for _ in range(args.steps):
            start = time.perf_counter()
            step()
            step_seconds.append(time.perf_counter() - start)
    prof.export_chrome_trace(prefix + ".kineto.json")
    et.unregister_callback()
    if args.log_calls:
        with open(prefix + ".calls.json", "w") as f:
            json.dump(calls, f)
        with open(prefix + ".steps.json", "w") as f:
            json.dump(step_seconds, f)
    if ddp is not None and rank == 0:
        logging = ddp._get_ddp_logging_data()
        expected = {
            "rebuilt_bucket_sizes": [int(x) for x in str(logging.get("rebuilt_bucket_sizes", "")).split(", ") if x],
            "parameters": sum(p.numel() for p in ddp.module.parameters()),
            "steps": args.steps,
        }
        with open(f"{args.job}.expected.json", "w") as f:
            json.dump(expected, f, indent=1)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job", choices=sorted(JOBS), required=True)
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--out", required=True)
    parser.add_argument("--width", type=int, default=0,
                        help="tp: the hidden size (default 64); pipeline: the activations' width (default 32)")
    parser.add_argument("--log-calls", action="store_true", help="also write <job>.rank<R>.calls.json: the calls the job issued, "
                        "and <job>.rank<R>.steps.json: each profiled step's wall time (s)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    args.out = os.path.abspath(args.out)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(run, args=(args.world_size, port, args), nprocs=args.world_size, join=True)


if __name__ == "__main__":
    main()
