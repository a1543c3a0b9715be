"""Times relay.bcast from Python the way `relay bench bcast` times relay_bcast from C, so the two
can be compared (docs/python.md, "Overhead"): per iteration a barrier, the call, and the slowest
rank's time; the mean over the timed iterations, after untimed warm-up iterations.

    mpirun -np 2 python examples/python/bench_bcast.py --size 8MiB --algorithm pipeline \
        --segment 64KiB --iterations 200
"""

import argparse
import json
import sys

import numpy as np
import relay
from mpi4py import MPI


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="8MiB", help="message size (default 8MiB)")
    parser.add_argument("--algorithm", default="pipeline")
    parser.add_argument("--policy", default="nonblocking")
    parser.add_argument("--segment", default="64KiB", help="segment size, or 'default'")
    parser.add_argument("-i", "--iterations", type=int, default=200)
    parser.add_argument("-x", "--warmup", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON line instead")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    nbytes = relay.parse_bytes(args.size)
    segment = None if args.segment == "default" else relay.parse_bytes(args.segment)
    # Written data, as relay bench bcast's buffer is: the pages of np.zeros are not backed until
    # written, and reading unbacked pages (one shared zero page) would flatter the root's sends.
    buf = (np.arange(nbytes) % 251).astype(np.uint8)
    options = dict(algorithm=args.algorithm, policy=args.policy, segment_bytes=segment)
    for _ in range(args.warmup):
        comm.Barrier()
        relay.bcast(buf, 0, comm, **options)
    times = np.empty(args.iterations)
    for i in range(args.iterations):
        comm.Barrier()
        t0 = MPI.Wtime()
        relay.bcast(buf, 0, comm, **options)
        times[i] = MPI.Wtime() - t0
    slowest = np.empty_like(times)
    comm.Allreduce(times, slowest, op=MPI.MAX)
    if comm.Get_rank() == 0:
        avg_us = slowest.mean() * 1e6
        if args.json:
            print(json.dumps({"bytes": nbytes, "avg_us": avg_us, "min_us": slowest.min() * 1e6,
                              "iterations": args.iterations, **options}))
        else:
            print(f"relay.bcast {args.size} {args.algorithm}/{args.policy} segment "
                  f"{args.segment} on {comm.Get_size()} ranks: avg {avg_us:.1f} us "
                  f"(min {slowest.min() * 1e6:.1f} us, {args.iterations} iterations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
