package org.panamaverbs.bench.report;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.HardwareClass;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaCore;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.RdmaUnavailableException;
import org.panamaverbs.verbs.VerbsException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code scripts/device-report}: what each RDMA device of this machine allows a Panama Verbs program.
 * Prints the rdma-core (libibverbs) it runs on with any fallback it takes, then each device's identity, limits, ports and GID tables (as {@code ibv_devinfo -v} names them), the
 * detected profile with the reasons it was chosen, and one line per {@link org.panamaverbs.verbs.Capability}
 * from {@link Context#capabilities()}: allowed, limited, refused with the message the refusing verb throws,
 * or absent. {@code --profile pvrdma-hwv13|pvrdma-hwv14} answers as that emulated older host would;
 * {@code --json} prints one JSON document. Bad input and failures end in one line on stderr and exit 2 (the
 * command line) or 1 (the rest).
 */
@Command(name = "device-report", mixinStandardHelpOptions = true, sortOptions = false,
        description = "What each RDMA device allows a Panama Verbs program: the rdma-core it runs on, identity, limits,"
                + " ports, GIDs, the"
                + " detected profile and why, and every capability allowed, limited, refused (with the message a"
                + " program gets) or absent.")
public final class DeviceReport implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEVICE", description = "report only this device (default: every device)")
    String device;

    @Option(names = "--profile", paramLabel = "PROFILE", converter = ProfileConverter.class,
            description = "native (the detected profile, default), pvrdma-hwv13 (ESXi 6.5) or pvrdma-hwv14 (ESXi 6.7):"
                    + " answer as that emulated host would, on this device")
    HardwareClass profile;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    private PrintWriter out;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the report with {@code args}, printing to {@code out} and errors (one line each) to {@code err}. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        DeviceReport report = new DeviceReport();
        report.out = out;
        CommandLine cli = new CommandLine(report).setOut(out).setErr(err);
        cli.setParameterExceptionHandler((e, arguments) -> {
            e.getCommandLine().getErr().println("device-report: " + e.getMessage() + " (see --help)");
            return 2;
        });
        cli.setExecutionExceptionHandler((e, failed, parsed) -> {
            failed.getErr().println("device-report: " + (e instanceof VerbsException || e instanceof RdmaUnavailableException
                    || e instanceof IllegalArgumentException || e instanceof IllegalStateException ? e.getMessage()
                    : e.getClass().getSimpleName() + ": " + e.getMessage()));
            return 1;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() {
        print(out, device, profile, json);
        return 0;
    }

    /**
     * The report without its command line: {@code device} null for every device, {@code profile} null for the
     * detected one. Failures are thrown. The PVRDMA tier's check calls it, sparing the nested guest picocli's
     * classes, which no class archive can hold linked (Java 5 bytecode).
     */
    static void print(PrintWriter out, String device, HardwareClass profile, boolean json) {
        List<String> names = device != null ? List.of(device) : Rdma.devices().stream().map(RdmaDevice::name).toList();
        if (names.isEmpty()) {
            throw new IllegalStateException("the kernel supports RDMA but has no RDMA device");
        }
        List<DeviceFacts> devices = new ArrayList<>();
        for (String name : names) {
            // native opens with the detected profile, never the panamaverbs.profile property's
            try (Context context = Rdma.open(name, profile == null ? HardwareClass.NOT_PVRDMA : profile)) {
                devices.add(DeviceFacts.read(context));
            }
        }
        RdmaCore library = Rdma.rdmaCore();
        out.print(json ? ReportFormat.json(library, devices) + "\n" : ReportFormat.text(library, devices));
        out.flush();
    }

    /** {@code --profile}'s values: {@link HardwareClass#propertyValue()}. */
    static final class ProfileConverter implements CommandLine.ITypeConverter<HardwareClass> {
        @Override
        public HardwareClass convert(String value) {
            for (HardwareClass c : HardwareClass.values()) {
                if (c.propertyValue().equals(value)) {
                    return c;
                }
            }
            throw new CommandLine.TypeConversionException("--profile must be native, pvrdma-hwv13 or pvrdma-hwv14, not '" + value + "'");
        }
    }
}
