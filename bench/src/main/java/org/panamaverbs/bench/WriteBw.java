package org.panamaverbs.bench;

import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.bench.perftest.Perftest;

/**
 * The main job, {@code scripts/write-bw}: {@code ib_write_bw --loopback}, an RDMA WRITE bandwidth run between two
 * RC queue pairs of one device, with perftest 4.5's loop, figures and table (see
 * {@link org.panamaverbs.bench.perftest.RdmaBandwidth}). Takes {@code ib_write_bw}'s flags.
 */
public final class WriteBw {
    private WriteBw() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs {@code ib_write_bw --loopback} with {@code args}; returns the exit code. */
    static int run(String... args) {
        List<String> command = new ArrayList<>(List.of("ib_write_bw", "--loopback"));
        command.addAll(List.of(args));
        return Perftest.run(command.toArray(String[]::new));
    }
}
