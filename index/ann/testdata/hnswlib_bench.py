#!/usr/bin/python3
"""Benchmark hnswlib on the data sets index/ann benchmarks itself on.

The Go side writes the data (clustered unit vectors, held-out queries and
Exact's top-10 ids) as .npy files:

    mkdir -p /tmp/annbench
    REQA_ANN_DUMP=/tmp/annbench go test -count=1 -run TestWriteHnswlibData ./index/ann/
    # add REQA_BENCH_LARGE=1 to also write the 200,000 x 512 set

then, with Debian's hnswlib (apt-get install -y python3-hnswlib python3-numpy;
run it with /usr/bin/python3, which is the interpreter those packages serve):

    /usr/bin/python3 index/ann/testdata/hnswlib_bench.py /tmp/annbench
    /usr/bin/python3 index/ann/testdata/hnswlib_bench.py /tmp/annbench --name clustered-200000x512

It builds an inner-product index (distance 1 - dot, as index/ann) with the
same M and efConstruction as BenchmarkHNSW, single-threaded like the Go
build, and prints recall@10 against the Go ground truth and single-query
latency percentiles per ef, then the smallest ef that reaches --target
recall, to compare with BenchmarkHNSW at matched recall (and a line
PEER-RESULT {json} for `make bench-peers`, which runs it with --name squad
on the SQuAD vectors of a reqa index). Latencies include
the Python call overhead of one knn_query (a few microseconds).
"""

import argparse
import os
import sys
import time

import numpy as np

try:
    import hnswlib
except ImportError:
    sys.exit("hnswlib not importable: apt-get install -y python3-hnswlib, run with /usr/bin/python3")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="directory written by TestWriteHnswlibData")
    ap.add_argument("--name", default="clustered-20000x384")
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--efc", type=int, default=200)
    ap.add_argument("--efs", default="10,16,20,32,64,128")
    ap.add_argument("--threads", type=int, default=1, help="build threads")
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args()

    load = lambda s: np.load(os.path.join(args.dir, f"{args.name}-{s}.npy"))
    base, queries, gt = load("base"), load("queries"), load("gt")
    n, dim = base.shape
    k = gt.shape[1]
    print(f"hnswlib {getattr(hnswlib, '__version__', '(Debian python3-hnswlib)')}, "
          f"{args.name}: {n} x {dim}, {len(queries)} queries, M={args.M} efC={args.efc} threads={args.threads}")

    index = hnswlib.Index(space="ip", dim=dim)
    index.init_index(max_elements=n, M=args.M, ef_construction=args.efc, random_seed=args.seed)
    index.set_num_threads(args.threads)
    t0, c0 = time.perf_counter(), time.process_time()
    index.add_items(base, np.arange(n), num_threads=args.threads)
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"build {build:.2f} s wall, {build_cpu:.2f} s cpu")

    truth = [set(row) for row in gt.tolist()]
    rows = []
    print(f"{'ef':>5} {'recall@10':>10} {'p50-us':>9} {'p99-us':>9} {'cpu-us/op':>10}")
    for ef in [int(x) for x in args.efs.split(",")]:
        index.set_ef(max(ef, k))
        labels, _ = index.knn_query(queries, k=k, num_threads=1)
        recall = sum(len(truth[i] & set(labels[i].tolist())) for i in range(len(queries))) / (k * len(queries))
        lat = []
        c0 = time.process_time()
        for rep in range(4):  # 4 passes over the queries, one query per call
            for q in queries:
                t0 = time.perf_counter()
                index.knn_query(q, k=k, num_threads=1)
                lat.append(time.perf_counter() - t0)
        cpu = (time.process_time() - c0) * 1e6 / len(lat)
        lat = np.array(lat) * 1e6
        p50, p99 = np.percentile(lat, 50), np.percentile(lat, 99)
        rows.append((ef, recall, p50, p99, cpu))
        print(f"{ef:>5} {recall:>10.4f} {p50:>9.1f} {p99:>9.1f} {cpu:>10.1f}")

    import json
    print("PEER-RESULT " + json.dumps({"peer": "hnswlib", "set": args.name, "build_s": build, "build_cpu_s": build_cpu,
                                       "M": args.M, "efc": args.efc,
                                       "rows": [{"ef": r[0], "recall": r[1], "p50_us": r[2], "p99_us": r[3], "cpu_us": r[4]}
                                                for r in rows]}))
    hit = [r for r in rows if r[1] >= args.target]
    if hit:
        ef, recall, p50, p99, cpu = hit[0]
        print(f"matched recall >= {args.target}: ef={ef} recall@10={recall:.4f} "
              f"p50={p50:.1f} us p99={p99:.1f} us cpu={cpu:.1f} us/query")
    else:
        print(f"no ef in {args.efs} reaches recall {args.target}")


if __name__ == "__main__":
    main()
