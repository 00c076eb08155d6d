#!/usr/bin/env python3
"""Medians and ratios of bench/compare-netty's CSV: RDMA/TCP per case (Netty stream exchange, gRPC unary), for the
transport on its own loops (rdma) and on Netty's epoll loops (rdma-epoll, with its time over rdma's), and Java
transport / C rstream on rstream's exchange. Prints Markdown tables."""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    for row in csv.DictReader(open(path)):
        key = (row["test"], int(row["size"]), int(row["count"]), int(row["iterations"]))
        runs[(key, row["label"])].append(row)
    cases = sorted({key for key, _ in runs})

    def median(key, label, column):
        values = [float(r[column]) for r in runs.get((key, label), []) if r[column]]
        return statistics.median(values) if values else None

    def fmt(v, digits=1):
        return "-" if v is None else f"{v:.{digits}f}"

    def ratio(a, b):
        return None if a is None or b in (None, 0) else a / b

    print("| case | transport | runs | median µs/transfer (p50 round trip µs, p99) | median Gb/s | RDMA/TCP time"
          " | epoll/RdmaIoHandler time |")
    print("|---|---|---|---|---|---|---|")
    for key in cases:
        test, size, count, iterations = key
        name = f"{test} {size} B" + (f" x{count}" if test == "stream" else "") + f", {iterations} iter"
        tcp = median(key, "java-tcp", "usec_per_xfer")
        rdma = median(key, "java-rdma", "usec_per_xfer")
        for label in ("java-tcp", "java-rdma", "java-rdma-epoll"):
            n = len(runs.get((key, label), []))
            if not n:
                continue
            t = median(key, label, "usec_per_xfer")
            print(f"| {name} | {label[5:]} | {n} | {fmt(t, 2)} ({fmt(median(key, label, 'p50_us'))}, "
                  f"{fmt(median(key, label, 'p99_us'))}) | {fmt(median(key, label, 'gbps'), 3)} | "
                  f"{fmt(ratio(t, tcp), 2) if label != 'java-tcp' else ''} | "
                  f"{fmt(ratio(t, rdma), 2) if label == 'java-rdma-epoll' else ''} |")
    print()
    print("| rstream exchange | C rstream µs/xfer, Gb/s | Java transport µs/xfer, Gb/s | Java/C time |")
    print("|---|---|---|---|")
    for key in cases:
        c = median(key, "c-rstream", "usec_per_xfer")
        j = median(key, "java-rsocket", "usec_per_xfer")
        if c is None and j is None:
            continue
        test, size, count, iterations = key
        print(f"| -S {size} -C {count} -I {iterations} | {fmt(c, 2)}, {fmt(median(key, 'c-rstream', 'gbps'), 3)} | "
              f"{fmt(j, 2)}, {fmt(median(key, 'java-rsocket', 'gbps'), 3)} | {fmt(ratio(j, c), 2)} |")


if __name__ == "__main__":
    main(sys.argv[1])
