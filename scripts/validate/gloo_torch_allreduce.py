#!/usr/bin/env python3
"""torch.distributed's gloo all_reduce, timed the way collbench's host schedule times it (OSU's):
a barrier outside the timed region, then the host clock around one call; the median over calls
of the slowest rank's time. Ranks on this host, 1 thread each. One JSON line per size on stdout.

Usage: python gloo_torch_allreduce.py [--sizes 8,64,...] [--iters 200] [--warmup 20]
                                      [--ranks 2] [--back-to-back] [--io-thread default|batch]
  --back-to-back  no barrier between the timed calls (as replay_perf and replay_vs_torch.py's
                  reference issue a sequence): each rank starts its next call when its last ends
  --io-thread batch  put gloo's TCP I/O thread (gloo_tcp_loop) under SCHED_BATCH, as collbench puts
                  its own (src/backends/gloo/io_thread.h). Not torch's default: no real job does it.
                  It shows what the wake-up preemptions of that thread cost (issue 61: on 2 cores a
                  woken I/O thread preempts the other rank's worker while that worker holds its pair's
                  lock, and both I/O threads spin in epoll until the 4 ms scheduler tick)
  --ranks 1       one rank, no peer: what a call costs torch without any data moved (Python,
                  ProcessGroupGloo's work queue, its worker thread and back)
Each line also has p10/p90/mean, the calls over 3 ms (a scheduler tick at HZ=250) and, per call, the
CPU time of this rank's gloo I/O thread and worker threads (/proc/self/task/*/schedstat).

Used by scripts/validate/gloo_stall.sh beside collbench's all_reduce_perf --backend gloo, and to
explain scripts/validate/replay_vs_torch.sh's reference (results/replay/2026-12-07-torch/).
"""
import argparse, json, os, socket, statistics, time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

GLOO_IO_THREAD = "gloo_tcp_loop"  # torch's name of gloo's TCP transport loop
GLOO_WORKER = "pt_gloo_runloop"  # ProcessGroupGloo's worker threads, which run each call


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def threads_named(name):
    tasks = "/proc/self/task"
    return [int(tid) for tid in os.listdir(tasks) if open(f"{tasks}/{tid}/comm").read().strip() == name]


def batch_io_threads():
    """SCHED_BATCH for this process's gloo I/O threads: a woken one no longer preempts the thread running."""
    threads = threads_named(GLOO_IO_THREAD)
    for tid in threads:
        os.sched_setscheduler(tid, os.SCHED_BATCH, os.sched_param(0))
    return len(threads)


def cpu_us(name):
    """CPU time so far of this process's threads of that name, us."""
    return sum(int(open(f"/proc/self/task/{tid}/schedstat").read().split()[0]) for tid in threads_named(name)) / 1e3


def worker(rank, world, port, args):
    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    if args.io_thread == "batch" and batch_io_threads() == 0:
        raise SystemExit(f"gloo_torch_allreduce: no {GLOO_IO_THREAD} thread in this torch")
    for nbytes in args.sizes:
        x = torch.ones(max(1, nbytes // 4), dtype=torch.float32)
        for _ in range(args.warmup):
            dist.barrier()
            dist.all_reduce(x)
        times = []
        dist.barrier()
        io_before, worker_before = cpu_us(GLOO_IO_THREAD), cpu_us(GLOO_WORKER)
        for _ in range(args.iters):
            if not args.back_to_back:
                dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(x)
            times.append((time.perf_counter() - start) * 1e6)
        io_us, worker_us = (cpu_us(GLOO_IO_THREAD) - io_before) / args.iters, (cpu_us(GLOO_WORKER) - worker_before) / args.iters
        t = torch.tensor(times, dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank per call
        if rank == 0:
            slowest = sorted(t.tolist())
            print(json.dumps({"bytes": nbytes, "p50_us": statistics.median(slowest), "iters": args.iters, "torch": torch.__version__,
                              "ranks": world, "schedule": "back-to-back" if args.back_to_back else "barrier before each call",
                              "io_thread": args.io_thread, "p10_us": slowest[len(slowest) // 10],
                              "p90_us": slowest[len(slowest) * 9 // 10], "mean_us": statistics.mean(slowest),
                              "calls_over_3ms": sum(1 for us in slowest if us > 3000),
                              "rank0_io_thread_cpu_us_per_call": io_us, "rank0_workers_cpu_us_per_call": worker_us}), flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="8,64,512,4096,32768,262144,1048576")
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--back-to-back", action="store_true")
    parser.add_argument("--io-thread", choices=("default", "batch"), default="default")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    mp.spawn(worker, args=(args.ranks, free_port(), args), nprocs=args.ranks)


if __name__ == "__main__":
    main()
