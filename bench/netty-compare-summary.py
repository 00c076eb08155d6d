#!/usr/bin/env python3
"""Medians and ratios of bench/compare-netty's CSV: RDMA/TCP per case (Netty stream exchange, gRPC unary), for the
transport on its own loops (rdma), on Netty's epoll loops (rdma-epoll, with its time over rdma's) and, with
BUSY_POLL_AB, on its own loops busy-polling (rdma-busy, with its time over rdma's), with AB_JAR, another build's
transport on its own loops (rdma-ab, with its time over rdma's), and Java transport / C rstream
on the stream cases for each of them (NettyBench's stream exchange is rstream's). Each ratio is taken within a pair
(runs of the same pair ran one after the other) and the table gives the median of the per-pair ratios with their
range. Prints Markdown tables.

bench/compare-nio reuses it with its own labels: --labels (the Java runs, in table order), --tcp (the base of the
RDMA/TCP ratios) and --base (the run the others are also timed against, java-rdma by default)."""
import argparse
import csv
import statistics
from collections import defaultdict


def main(path, labels=("java-tcp", "java-rdma", "java-rdma-epoll", "java-rdma-busy", "java-rdma-ab"),
         tcp="java-tcp", base_rdma="java-rdma"):
    runs = defaultdict(dict)  # (case, label) -> {pair: row}
    for row in csv.DictReader(open(path)):
        key = (row["test"], int(row["size"]), int(row["count"]), int(row["iterations"]))
        runs[(key, row["label"])][row["pair"]] = row
    cases = sorted({key for key, _ in runs})

    def values(key, label, column):
        return [float(r[column]) for r in runs.get((key, label), {}).values() if r[column]]

    def median(key, label, column):
        v = values(key, label, column)
        return statistics.median(v) if v else None

    def pair_ratios(key, label, base):
        """label's time over base's time, pair by pair (pairs where both ran)."""
        a, b = runs.get((key, label), {}), runs.get((key, base), {})
        return [float(a[p]["usec_per_xfer"]) / float(b[p]["usec_per_xfer"])
                for p in sorted(a.keys() & b.keys()) if a[p]["usec_per_xfer"] and float(b[p]["usec_per_xfer"] or 0)]

    def ratio_text(key, label, base):
        r = pair_ratios(key, label, base)
        if not r:
            return "-"
        return f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}, {len(r)} pairs)"

    def fmt(v, digits=1):
        return "-" if v is None else f"{v:.{digits}f}"

    java = [label for label in labels if any(l == label for _, l in runs)]
    against_rdma = [label for label in java if label not in (tcp, base_rdma)]
    print("| case | transport | runs | median µs/transfer (p50 round trip µs, p99) | median Gb/s | RDMA/TCP time,"
          " per pair |" + "".join(f" {label[5:]}/{base_rdma[5:]} time, per pair |" for label in against_rdma))
    print("|---|---|---|---|---|---|" + "---|" * len(against_rdma))
    for key in cases:
        test, size, count, iterations = key
        name = f"{test} {size} B" + (f" x{count}" if test == "stream" else "") + f", {iterations} iter"
        for label in java:
            n = len(runs.get((key, label), {}))
            if not n:
                continue
            t = median(key, label, "usec_per_xfer")
            print(f"| {name} | {label[5:]} | {n} | {fmt(t, 2)} ({fmt(median(key, label, 'p50_us'))}, "
                  f"{fmt(median(key, label, 'p99_us'))}) | {fmt(median(key, label, 'gbps'), 3)} | "
                  f"{ratio_text(key, label, tcp) if label != tcp else ''} |"
                  + "".join(f" {ratio_text(key, label, base_rdma) if label == other else ''} |"
                            for other in against_rdma))
    rdma = [label for label in java if label != tcp]
    for base, name in (("c-rstream", "C rstream"), ("c-rstream-blocking", "C rstream -T b")):
        if not any(label == base for _, label in runs):
            continue
        print()
        print(f"| rstream exchange | {name} µs/xfer, Gb/s |"
              + "".join(f" {label[5:]} µs/xfer, Gb/s |" for label in rdma)
              + "".join(f" {label[5:]}/C time, per pair |" for label in rdma))
        print("|---|---|" + "---|" * (2 * len(rdma)))
        for key in cases:
            test, size, count, iterations = key
            c = median(key, base, "usec_per_xfer")
            if test != "stream" or (c is None and all(median(key, label, "usec_per_xfer") is None for label in rdma)):
                continue
            print(f"| -S {size} -C {count} -I {iterations} | {fmt(c, 2)}, {fmt(median(key, base, 'gbps'), 3)} |"
                  + "".join(f" {fmt(median(key, label, 'usec_per_xfer'), 2)}, {fmt(median(key, label, 'gbps'), 3)} |"
                            for label in rdma)
                  + "".join(f" {ratio_text(key, label, base)} |" for label in rdma))

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="medians and per-pair ratios of a compare-netty or compare-nio CSV")
    parser.add_argument("csv")
    parser.add_argument("--labels", help="the Java runs' labels, comma-separated, in table order")
    parser.add_argument("--tcp", default="java-tcp", help="the label the RDMA/TCP ratios divide by")
    parser.add_argument("--base", default="java-rdma", help="the label the other RDMA runs are also timed against")
    options = parser.parse_args()
    if options.labels:
        main(options.csv, options.labels.split(","), options.tcp, options.base)
    else:
        main(options.csv, tcp=options.tcp, base_rdma=options.base)
