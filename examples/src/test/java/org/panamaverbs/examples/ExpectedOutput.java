package org.panamaverbs.examples;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A program's expected standard output, from {@code src/test/resources/expected/NAME.txt} (the same files the
 * documentation shows as the programs' output). Matched line by line: {@code …} within a line stands for any
 * text (addresses, keys, queue pair numbers), a line that is only {@code …} for any number of lines, and the
 * device name {@code rxe0} for the device the test ran on.
 */
final class ExpectedOutput {
    static final String ANY = "\u2026";

    private final String name;
    private final String text;

    private ExpectedOutput(String name, String text) {
        this.name = name;
        this.text = text;
    }

    static ExpectedOutput of(String name) throws IOException {
        try (InputStream in = ExpectedOutput.class.getResourceAsStream("/expected/" + name + ".txt")) {
            if (in == null) {
                throw new IllegalArgumentException("no expected output " + name);
            }
            return new ExpectedOutput(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** The pattern the whole output must match, on device {@code device}. */
    Pattern pattern(String device) {
        StringBuilder regex = new StringBuilder();
        for (String line : text.replace("rxe0", device).split("\n", -1)) {
            if (line.isEmpty()) {
                continue;                               // the final newline, or blank lines, which programs never print
            }
            if (line.strip().equals(ANY)) {
                regex.append("(?:[^\\n]*\\n)*?");
                continue;
            }
            String[] parts = line.split(Pattern.quote(ANY), -1);
            for (int i = 0; i < parts.length; i++) {
                regex.append(i > 0 ? "[^\\n]*" : "").append(Pattern.quote(parts[i]));
            }
            regex.append("\\n");
        }
        return Pattern.compile(regex.toString());
    }

    /** Whether {@code output} (lines ending in newlines) is what this file expects on {@code device}. */
    boolean matches(String output, String device) {
        return pattern(device).matcher(output).matches();
    }

    @Override
    public String toString() {
        return "expected/" + name + ".txt:\n" + text;
    }
}
