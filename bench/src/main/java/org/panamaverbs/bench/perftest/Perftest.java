package org.panamaverbs.bench.perftest;

import java.io.PrintWriter;
import java.util.List;

import org.panamaverbs.verbs.RdmaUnavailableException;
import org.panamaverbs.verbs.VerbsException;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The perftest tools in Java: {@code java -cp panama-verbs-bench.jar org.panamaverbs.bench.perftest.Perftest
 * <tool> [perftest flags] [server]}. Bad input and failures end in one line on stderr naming the tool and a
 * non-zero exit (2 for the command line, 1 for the rest), never a stack trace.
 */
@Command(name = "perftest", mixinStandardHelpOptions = true,
        description = "perftest's tools in Java, wire-compatible with the C ones of perftest 4.5 to 26.04.")
public final class Perftest {
    private static final List<Class<?>> TOOLS = List.of(RdmaBandwidth.Write.class, RdmaBandwidth.Read.class,
            SendBandwidth.class, WriteLatency.class, Latency.Read.class, Latency.Send.class, AtomicBandwidth.class,
            AtomicLatency.class);

    private Perftest() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(null, args);
    }

    /** Runs a tool; {@code err}, if not null, receives the error lines instead of stderr. */
    static int run(PrintWriter err, String... args) {
        return commandLine(err, args.length > 0 ? args[0] : null).execute(args);
    }

    /** The tools' command line, with their error handling and perftest's options they refuse, on every tool. */
    static CommandLine commandLine(PrintWriter err) {
        return commandLine(err, null);
    }

    /**
     * The tools' command line; when {@code toolName} names a tool, that tool alone (a JVM runs one tool, and picocli
     * reads every tool's annotations and declares perftest's refused options on each: most of an interpreted start,
     * which the test tiers' guests pay per run).
     */
    static CommandLine commandLine(PrintWriter err, String toolName) {
        CommandLine cli = new CommandLine(new Perftest());
        boolean named = false;
        for (Class<?> tool : TOOLS) {
            if (toolName(tool).equals(toolName)) {
                cli.addSubcommand(tool);
                named = true;
            }
        }
        if (!named) {
            TOOLS.forEach(cli::addSubcommand);
        }
        cli.setOverwrittenOptionsAllowed(true); // as perftest's getopt: a flag given twice takes the last value
        if (err != null) {
            cli.setErr(err);
        }
        cli.setParameterExceptionHandler((e, arguments) -> {
            CommandLine failed = e.getCommandLine();
            failed.getErr().println(failed.getCommandName() + ": " + e.getMessage() + " (see --help)");
            return 2;
        });
        cli.setExecutionExceptionHandler((e, failed, parsed) -> {
            failed.getErr().println(failed.getCommandName() + ": " + describe(e));
            return 1;
        });
        PerftestRefusals.declare(cli, toolName);
        cli.setExecutionStrategy(parsed -> {
            String refusal = PerftestRefusals.refusal(parsed);
            if (refusal != null) {
                CommandLine tool = parsed.subcommand().commandSpec().commandLine();
                tool.getErr().println(tool.getCommandName() + ": " + refusal);
                return 1;
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        return cli;
    }

    private static String toolName(Class<?> tool) {
        return tool.getAnnotation(Command.class).name();
    }

    /** One line for a failure: the messages of the library's exceptions already say what to do. */
    static String describe(Throwable e) {
        if (e instanceof PerftestException || e instanceof VerbsException || e instanceof RdmaUnavailableException
                || e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            return e.getMessage();
        }
        if (e instanceof OutOfMemoryError) {
            return "not enough memory for the run (" + e.getMessage() + "): lower -s or -n";
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
