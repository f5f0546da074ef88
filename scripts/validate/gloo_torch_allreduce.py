#!/usr/bin/env python3
"""torch.distributed's gloo all_reduce, timed the way collbench's host schedule times it (OSU's):
a barrier outside the timed region, then the host clock around one call; the median over calls
of the slowest rank's time. 2 ranks on this host, 1 thread each. One JSON line per size on stdout.

Usage: python gloo_torch_allreduce.py [--sizes 8,64,...] [--iters 200] [--warmup 20]
Used by scripts/validate/gloo_stall.sh beside collbench's all_reduce_perf --backend gloo.
"""
import argparse, json, os, socket, statistics, time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world, port, sizes, iters, warmup):
    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    for nbytes in sizes:
        x = torch.ones(max(1, nbytes // 4), dtype=torch.float32)
        for _ in range(warmup):
            dist.barrier()
            dist.all_reduce(x)
        times = []
        for _ in range(iters):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(x)
            times.append((time.perf_counter() - start) * 1e6)
        t = torch.tensor(times, dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank per call
        if rank == 0:
            print(json.dumps({"bytes": nbytes, "p50_us": statistics.median(t.tolist()), "iters": iters,
                              "torch": torch.__version__}), flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="8,64,512,4096,32768,262144,1048576")
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    mp.spawn(worker, args=(2, free_port(), sizes, args.iters, args.warmup), nprocs=2)


if __name__ == "__main__":
    main()
