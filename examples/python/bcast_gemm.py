"""relay from Python: a pipelined broadcast and a distributed matrix multiplication, each
checked against numpy.

    pip install .                       # in relay's source tree (docs/python.md)
    RELAY_LOG=1 mpirun -np 4 python examples/python/bcast_gemm.py [--n 2048]

RELAY_LOG=1 makes relay print every call it serves, one line per rank: the proof that relay's
code ran, with the configuration it chose.
"""

import argparse
import sys

import numpy as np
import relay
from mpi4py import MPI


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048, help="matrix order (default 2048)")
    parser.add_argument("--block", type=int, default=64, help="block size (default 64)")
    parser.add_argument("--mib", type=int, default=8, help="broadcast size, MiB (default 8)")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()

    # A broadcast of --mib MiB with relay's pipeline, 64 KiB segments.
    count = args.mib * (1 << 20) // 8
    buf = np.arange(count, dtype=np.float64) if rank == 0 else np.zeros(count)
    relay.bcast(buf, root=0, algorithm="pipeline", segment_bytes=64 << 10)
    ok = bool(np.array_equal(buf, np.arange(count, dtype=np.float64)))
    if not all(comm.allgather(ok)):
        print("bcast: wrong data", file=sys.stderr)
        return 1
    if rank == 0:
        print(f"bcast of {args.mib} MiB (pipeline) checked on {comm.Get_size()} ranks")

    # C = A B on the squarest grid, A and B made on rank 0 and distributed block-cyclically.
    rng = np.random.default_rng(2026)
    a = rng.standard_normal((args.n, args.n)) if rank == 0 else None
    b = rng.standard_normal((args.n, args.n)) if rank == 0 else None
    with relay.Grid(comm) as grid:
        da = relay.DistributedMatrix.from_global(grid, a, args.block, args.block)
        db = relay.DistributedMatrix.from_global(grid, b, args.block, args.block)
        dc, stats = relay.gemm(da, db, return_stats=True)
        c = dc.to_global(root=0)
    if rank == 0:
        want = a @ b
        error = np.abs(c - want).max() / np.abs(want).max()
        gflops = 2.0 * args.n**3 / stats["total_s"] / 1e9
        print(f"gemm n={args.n} on a {grid.rows}x{grid.cols} grid ({stats['algorithm']}): "
              f"{stats['total_s']:.3f} s, {gflops:.1f} GFLOP/s; max relative error {error:.1e}")
        if not error < 1e-12:
            print("gemm: wrong result", file=sys.stderr)
            return 1
        print("gemm checked against numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
