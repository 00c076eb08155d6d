package org.panamaverbs.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The documentation cannot rot: README.md and docs/ show code and output taken from files the build compiles or
 * the device tests check (a marked block must equal its file's marked region), every Java block of README.md and
 * docs/guide is such a block, links between the pages lead somewhere, and user-facing text names no machine path,
 * commit or session date. No device needed.
 *
 * <p>The marker convention: a line {@code <!-- snippet: PATH#REGION -->} (or {@code PATH} alone, for the whole
 * file) right before a fenced code block; in the file, the region is the lines between one containing
 * {@code snippet:REGION} and the next containing {@code end-snippet}, compared after removing their common
 * indentation. PATH is relative to the repository's root.
 */
class DocumentationTest {
    static final Path ROOT = repositoryRoot();
    private static final Pattern SNIPPET = Pattern.compile("<!--\\s*snippet:\\s*([^#\\s]+)(?:#(\\S+))?\\s*-->");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    /**
     * One machine's paths, commit ids (7 to 40 hex digits with a letter among them, not a 0x constant, or any hex
     * number after the word commit) and dates.
     */
    static final Pattern FORBIDDEN = Pattern.compile(
            "(/work/|/usr/lib/jvm/|/root/|/home/|/tmp/[\\w.-]+/)"
                    + "|(?<![0-9A-Za-z_x.:-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z_])"
                    + "|(?i:\\bcommits?\\s+[0-9a-f]{7,40}\\b)"
                    + "|\\b20\\d\\d-\\d\\d-\\d\\d\\b");

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("parent/pom.xml")) && Files.exists(p.resolve("README.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("not inside the repository: " + dir);
    }

    /** A fenced code block of a Markdown page: where it starts, its language, its text, its snippet marker. */
    record Block(Path page, int line, String language, String text, String source, String region) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    static List<Block> blocks(Path page) {
        List<String> lines = read(page);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                String line = lines.get(i);
                text.append(line.startsWith(indent) ? line.substring(indent.length()) : line.strip()).append('\n');
            }
            if (i == lines.size()) {
                fail(ROOT.relativize(page) + ":" + (start + 1) + ": code block never closed");
            }
            Matcher marker = start > 0 ? SNIPPET.matcher(lines.get(start - 1)) : null;
            boolean marked = marker != null && marker.find();
            blocks.add(new Block(page, start + 1, open.group(2), text.toString(), marked ? marker.group(1) : null,
                    marked ? marker.group(2) : null));
        }
        return blocks;
    }

    /** The region {@code name} of {@code file} (or the whole file for null), without its common indentation. */
    static String region(Path file, String name) {
        List<String> lines = read(file);
        if (name == null) {
            return String.join("\n", lines) + "\n";
        }
        List<String> region = null;
        for (String line : lines) {
            if (region == null) {
                if (line.matches(".*\\bsnippet:" + Pattern.quote(name) + "\\b.*")) {
                    region = new ArrayList<>();
                }
            } else if (line.contains("end-snippet")) {
                return dedent(region);
            } else {
                region.add(line);
            }
        }
        throw new AssertionError(ROOT.relativize(file) + " has no region '" + name + "' ending in end-snippet");
    }

    static String dedent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
        }
        return text.toString();
    }

    static List<Path> pages() {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String other : List.of("bench/README.md", "scripts/README.md", "jextract/README.md", "CHANGELOG.md")) {
            if (Files.exists(ROOT.resolve(other))) {
                pages.add(ROOT.resolve(other));
            }
        }
        return pages;
    }

    /** README.md and the user guide: what a user reads. */
    static List<Path> userPages() {
        return pages().stream().filter(p -> p.equals(ROOT.resolve("README.md")) || p.startsWith(ROOT.resolve("docs/guide")))
                .toList();
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyMarkedBlockIsItsFilesRegion() {
        int checked = 0;
        List<String> failures = new ArrayList<>();
        for (Path page : pages()) {
            for (Block block : blocks(page)) {
                if (block.source() == null) {
                    continue;
                }
                Path file = ROOT.resolve(block.source());
                if (!Files.isRegularFile(file)) {
                    failures.add(block.where() + ": snippet source " + block.source() + " does not exist");
                    continue;
                }
                String expected = region(file, block.region());
                if (!expected.equals(block.text())) {
                    failures.add(block.where() + " differs from " + block.source()
                            + (block.region() == null ? "" : "#" + block.region()) + firstDifference(expected, block.text()));
                }
                checked++;
            }
        }
        assertEquals(List.of(), failures);
        assertTrue(checked >= 10, "only " + checked + " snippets found");
        System.out.println("documentation: " + checked + " code blocks equal their files' regions");
    }

    private static String firstDifference(String expected, String actual) {
        String[] e = expected.split("\n", -1);
        String[] a = actual.split("\n", -1);
        for (int i = 0; i < Math.max(e.length, a.length); i++) {
            String el = i < e.length ? e[i] : "(end)";
            String al = i < a.length ? a[i] : "(end)";
            if (!el.equals(al)) {
                return ": line " + (i + 1) + " of the block is\n    " + al + "\n  the file has\n    " + el;
            }
        }
        return "";
    }

    @Test
    void everyJavaBlockReadersSeeIsCompiledCode() {
        List<String> unmarked = new ArrayList<>();
        for (Path page : userPages()) {
            for (Block block : blocks(page)) {
                if (block.source() == null && block.language().equals("java")) {
                    unmarked.add(block.where());
                }
                if (block.language().isEmpty()) {
                    unmarked.add(block.where() + " (no language: say java, sh, xml, text, ...)");
                }
            }
        }
        assertEquals(List.of(), unmarked, "Java blocks without a snippet marker (put the code in examples/ and mark it)");
    }

    @Test
    void readmeIsAFrontDoorOfAtMost150Lines() {
        int lines = read(ROOT.resolve("README.md")).size();
        assertTrue(lines <= 150, "README.md has " + lines + " lines; move detail to docs/");
    }

    @Test
    void linksBetweenPagesLeadToFilesAndHeadings() {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            List<String> lines = read(page);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                if (FENCE.matcher(lines.get(i)).matches() || lines.get(i).strip().equals("```")) {
                    inCode = !inCode;
                    continue;
                }
                if (inCode) {
                    continue;
                }
                Matcher link = LINK.matcher(lines.get(i));
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue;                               // http(s), mailto: not checked offline
                    }
                    checked++;
                    String where = ROOT.relativize(page) + ":" + (i + 1) + ": " + target;
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    Path file = path.isEmpty() ? page : page.getParent().resolve(path).normalize();
                    if (!file.startsWith(ROOT) || !Files.exists(file)) {
                        broken.add(where + " (no such file)");
                    } else if (hash >= 0 && file.toString().endsWith(".md")
                            && !headingAnchors(file).contains(target.substring(hash + 1))) {
                        broken.add(where + " (no such heading; there are " + headingAnchors(file) + ")");
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
        assertTrue(checked >= 20, "only " + checked + " links found");
    }

    /** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    static List<String> headingAnchors(Path page) {
        List<String> anchors = new ArrayList<>();
        boolean inCode = false;
        for (String line : read(page)) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
            }
            if (!inCode && line.startsWith("#")) {
                String title = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
                String anchor = title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                String unique = anchor;
                for (int n = 1; anchors.contains(unique); n++) {
                    unique = anchor + "-" + n;
                }
                anchors.add(unique);
            }
        }
        return anchors;
    }

    @Test
    void userTextNamesNoMachinePathCommitOrSessionDate() {
        List<String> found = new ArrayList<>();
        for (Path page : userPages()) {
            List<String> lines = read(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = FORBIDDEN.matcher(lines.get(i));
                while (m.find()) {
                    found.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        assertEquals(List.of(), found, "user-facing text must not name a machine path, commit id or date"
                + " (dated measurements belong in docs/benchmarks)");
    }

    @Test
    void theCheckerFindsDriftAndForbiddenText() throws IOException {
        Path dir = Files.createTempDirectory("doc-check");
        Path source = dir.resolve("A.java");
        Files.writeString(source, "class A {\n    void f() {\n        // snippet:body\n        int x = 1;\n"
                + "            x++;\n        // end-snippet\n    }\n}\n");
        assertEquals("int x = 1;\n    x++;\n", region(source, "body"));
        Path page = dir.resolve("p.md");
        Files.writeString(page, "<!-- snippet: A.java#body -->\n```java\nint x = 2;\n    x++;\n```\n\n```sh\nls\n```\n");
        List<Block> found = blocks(page);
        assertEquals(2, found.size());
        assertEquals("A.java", found.get(0).source());
        assertEquals("body", found.get(0).region());
        assertTrue(!found.get(0).text().equals(region(source, "body")), "drift is seen");
        assertEquals(null, found.get(1).source());
        Files.writeString(page, "# Running on PVRDMA\n## What `scripts/device-report` says, and why?\n");
        assertEquals(List.of("running-on-pvrdma", "what-scriptsdevice-report-says-and-why"), headingAnchors(page));
        for (String bad : List.of("Until commit 4760395", "see /work/main/x", "JAVA_HOME=/usr/lib/jvm/temurin-25",
                "on 2026-11-24", "built at 3cfb462.")) {
            assertTrue(FORBIDDEN.matcher(bad).find(), bad);
        }
        for (String fine : List.of("Q_Key 0x11111111", "rkey 0x37a", "fe80::5054:ff:fe12:3456", "65536 bytes",
                "ib_write_bw", "deadline", "/tmp/rdma-guest.XXXXXX", "mlx5_0")) {
            assertTrue(!FORBIDDEN.matcher(fine).find(), fine);
        }
    }
}
