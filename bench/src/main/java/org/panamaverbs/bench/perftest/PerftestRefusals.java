package org.panamaverbs.bench.perftest;

import java.util.Collection;
import java.util.List;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Teaches each tool's parser the perftest options it does not implement ({@link PerftestFlags}), so that a perftest
 * command line pasted as it is gets one line saying why an option is refused (or is parsed, without effect, where it
 * would change nothing), not picocli's "Unknown option". They stay out of {@code --help}.
 */
final class PerftestRefusals {
    private PerftestRefusals() {
    }

    /**
     * Adds the options {@code cli}'s tools do not declare themselves, hidden: to the tool named {@code only} if
     * {@code cli} has it, else to every tool.
     */
    static void declare(CommandLine cli, String only) {
        Collection<CommandLine> tools = cli.getSubcommands().containsKey(only) ? List.of(cli.getSubcommands().get(only))
                : cli.getSubcommands().values();
        for (CommandLine tool : tools) {
            CommandSpec spec = tool.getCommandSpec();
            // names looked up in one map: picocli's findOption interpolates every option's names on each call, which
            // made this loop quadratic and most of an interpreted tool's start-up
            Map<String, OptionSpec> declared = spec.optionsMap();
            for (PerftestFlags.Flag flag : PerftestFlags.all()) {
                if (declared.containsKey(flag.longName())) {
                    continue; // the tool's own option: it implements it, or refuses it itself
                }
                String[] names = flag.shortName() != null && !declared.containsKey(flag.shortName()) ? flag.names()
                        : new String[] {flag.longName()};
                spec.addOption(OptionSpec.builder(names)
                        .arity(flag.takesValue() ? "1" : "0")
                        .type(flag.takesValue() ? String.class : boolean.class)
                        .hidden(true)
                        .description(flag.reason())
                        .build());
            }
        }
    }

    /**
     * The first refused option the command line gave its tool, as its one-line refusal ("--odp: ..."), or null.
     */
    static String refusal(ParseResult parsed) {
        ParseResult tool = parsed.subcommand();
        if (tool == null) {
            return null;
        }
        PerftestFlags.Tool which = PerftestFlags.Tool.of(tool.commandSpec().name());
        for (OptionSpec option : tool.matchedOptions()) {
            if (!option.hidden()) {
                continue;
            }
            PerftestFlags.Flag flag = PerftestFlags.named(option.longestName());
            // a hidden option implemented elsewhere (-A: the atomic tools declare it) is refused on this tool
            if (flag == null || flag.state() == PerftestFlags.State.ACCEPTED
                    || flag.state() == PerftestFlags.State.IMPLEMENTED && (which == null || flag.javaTools().contains(which))) {
                continue;
            }
            String where = which == null || flag.perftestTools().contains(which) ? ""
                    : " (C perftest has it on " + PerftestFlags.describe(flag.perftestTools()) + " only)";
            return flag.display() + " is refused: " + flag.reason() + where;
        }
        return null;
    }
}
