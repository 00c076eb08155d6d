package org.panamaverbs.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The project's rule for comments on fields, over the hand-written main sources of every module: a private field gets
 * a comment of one line or none. The why of a tricky field lives at the code that relies on it, or in the class
 * comment, where a reader meets it.
 */
class SourceCommentsTest {
    private static final List<String> SOURCE_ROOTS = List.of("src/main/java", "disni/src/main/java",
            "junit/src/main/java", "rsocket/src/main/java", "netty/src/main/java", "bench/src/main/java");
    /** A Javadoc comment right before a private field (a declaration that ends before any parenthesis). */
    private static final Pattern FIELD_COMMENT = Pattern.compile("\\n( *)/\\*\\*((?:(?!\\*/).)*?)\\*/\\n\\1private [^(=;{]*[;=]",
            Pattern.DOTALL);

    @Test
    void privateFieldsHaveCommentsOfOneLineOrNone() throws IOException {
        List<String> found = new ArrayList<>();
        int files = 0;
        for (String root : SOURCE_ROOTS) {
            try (Stream<Path> sources = Files.walk(DocumentationTest.ROOT.resolve(root))) {
                for (Path source : sources.filter(p -> p.toString().endsWith(".java")
                        && !p.toString().contains("/org/panamaverbs/ffi/")).toList()) {
                    files++;
                    String text = Files.readString(source);
                    Matcher comment = FIELD_COMMENT.matcher(text);
                    while (comment.find()) {
                        if (comment.group(2).contains("\n")) {
                            int line = (int) text.substring(0, comment.start() + 1).lines().count() + 1;
                            found.add(DocumentationTest.ROOT.relativize(source) + ":" + line);
                        }
                    }
                }
            }
        }
        assertTrue(files > 200, "the sources were found: " + files + " files");
        assertEquals(List.of(), found, "private fields with comments of more than one line");
    }
}
