package org.panamaverbs.bench;

import static org.panamaverbs.bench.CmScale.*;

import java.nio.file.Path;

/** The command line of either side. */
final class CmScaleOptions {
    boolean server;
    String address;
    int port = 7474;
    int count = 10_000;
    int inFlight = 64;
    Path file;
    long boundSeconds = 7200;

    static CmScaleOptions parse(String[] args) {
        CmScaleOptions o = new CmScaleOptions();
        if (args.length == 0 || !(args[0].equals("server") || args[0].equals("client"))) {
            throw new IllegalArgumentException("the first argument is server or client");
        }
        o.server = args[0].equals("server");
        boolean countGiven = false;
        for (int i = 1; i < args.length; i++) {
            String option = args[i];
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "-s", "-b" -> o.address = value;
                case "-p" -> o.port = Integer.parseInt(value);
                case "-n", "-c" -> {
                    o.count = Integer.parseInt(value);
                    countGiven = true;
                }
                case "-k" -> o.inFlight = Integer.parseInt(value);
                case "--stop", "--hold" -> o.file = Path.of(value);
                case "--bound" -> o.boundSeconds = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + option);
            }
        }
        if (!o.server && (o.address == null || !countGiven)) {
            throw new IllegalArgumentException("a client needs -s SERVER and -c CONNECTIONS");
        }
        if (o.count < 1 || o.inFlight < 1) {
            throw new IllegalArgumentException("counts are at least 1");
        }
        return o;
    }
}
