package org.panamaverbs.surface;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A module's public API as a text file that is committed beside its code, and a check that fails when the compiled
 * classes and the file differ, so that every API change shows as a diff of that file in review (the way Kotlin's
 * binary-compatibility validator keeps {@code .api} files). The surface is read from the class files with
 * {@link ClassSurface}: every public type of the given packages (a nested type only if its outer types are visible
 * too), its kind, superclass, interfaces and generic signature, and each public or protected field, constructor and
 * method with its descriptor, modifiers, generic signature and declared exceptions, marked {@code @Deprecated} where
 * it is. One line per type and per member, sorted, so the file diffs cleanly.
 *
 * <p>Not javap: its text changes between JDK releases, and japicmp and revapi compare two built artifacts, not an
 * artifact with a file. To accept a change, run the module's test with {@code -Dpanamaverbs.api.update=true}, which
 * rewrites the file, and commit it (docs/development.md, "The API surface").
 */
public final class ApiSurface {
    /** Set to {@code true} to rewrite the file from the classes instead of comparing them. */
    public static final String UPDATE_PROPERTY = "panamaverbs.api.update";

    private ApiSurface() {
    }

    /**
     * The surface of the classes under {@code classes} in {@code packages} (dotted names; their subpackages are not
     * included unless listed).
     */
    public static List<String> of(Path classes, List<String> packages) throws IOException {
        Map<String, ClassSurface> types = new TreeMap<>();
        for (String pkg : packages) {
            Path dir = classes.resolve(pkg.replace('.', '/'));
            if (!Files.isDirectory(dir)) {
                throw new IOException("no package " + pkg + " under " + classes + ": build the module first");
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    ClassSurface type = ClassSurface.parse(Files.readAllBytes(file));
                    types.put(type.name(), type);
                }
            }
        }
        List<String> lines = new ArrayList<>();
        for (ClassSurface type : types.values()) {
            if (visible(type, types)) {
                lines.addAll(render(type));
            }
        }
        return lines;
    }

    /**
     * For a modular project, from its base directory: the surface of every package {@code target/classes/module-info}
     * exports against {@code apiFile}, as {@link #assertMatches}.
     */
    public static void assertExportsMatch(String apiFile) throws IOException {
        Path classes = Path.of("target/classes");
        assertMatches(Path.of(apiFile), of(classes, exportedPackages(classes)));
    }

    /** The packages {@code classes/module-info.class} exports (unqualified exports only), sorted. */
    public static List<String> exportedPackages(Path classes) throws IOException {
        try (var in = Files.newInputStream(classes.resolve("module-info.class"))) {
            return ModuleDescriptor.read(in).exports().stream().filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source).sorted().toList();
        }
    }

    /**
     * Fails unless {@code surface} equals the file (its added and removed lines in the message), or rewrites the file
     * under {@link #UPDATE_PROPERTY}.
     */
    public static void assertMatches(Path file, List<String> surface) throws IOException {
        String header = "# The public API of this module, one line per type and member (org.panamaverbs.surface.ApiSurface)."
                + " Rewrite it with -D" + UPDATE_PROPERTY + "=true and commit it with the change.";
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            List<String> out = new ArrayList<>();
            out.add(header);
            out.addAll(surface);
            Files.write(file, out, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.isRegularFile(file)) {
            fail("no API file " + file + ": create it with -D" + UPDATE_PROPERTY + "=true and commit it");
        }
        List<String> committed = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .filter(line -> !line.startsWith("#")).toList();
        TreeSet<String> removed = new TreeSet<>(committed);
        surface.forEach(removed::remove);
        TreeSet<String> added = new TreeSet<>(surface);
        committed.forEach(added::remove);
        if (!removed.isEmpty() || !added.isEmpty()) {
            StringBuilder message = new StringBuilder("the public API differs from " + file + " (if the change is meant,"
                    + " rewrite the file with -D" + UPDATE_PROPERTY + "=true and commit it):\n");
            removed.forEach(line -> message.append("- ").append(line).append('\n'));
            added.forEach(line -> message.append("+ ").append(line).append('\n'));
            fail(message.toString());
        }
        if (!committed.equals(surface)) {
            fail("the API file " + file + " has the right lines in another order: rewrite it with -D" + UPDATE_PROPERTY
                    + "=true");
        }
    }

    /** A public type whose outer types, if it is nested, are all visible from outside the package. */
    private static boolean visible(ClassSurface type, Map<String, ClassSurface> types) {
        if (!type.visible()) {
            return false;
        }
        String name = type.name();
        for (int cut = name.lastIndexOf('$'); cut > 0; cut = name.lastIndexOf('$', cut - 1)) {
            ClassSurface outer = types.get(name.substring(0, cut));
            if (outer == null || !outer.visible()) {
                return false;
            }
        }
        return true;
    }

    private static List<String> render(ClassSurface type) {
        List<String> lines = new ArrayList<>();
        StringBuilder head = new StringBuilder(type.kind()).append(' ').append(type.name());
        if (type.superName() != null && !type.superName().equals("java.lang.Object")) {
            head.append(" extends ").append(type.superName());
        }
        if (!type.interfaces().isEmpty()) {
            head.append(" implements ").append(String.join(", ", type.interfaces()));
        }
        if (type.signature() != null) {
            head.append(" signature ").append(type.signature());
        }
        if (type.deprecated().contains(ClassSurface.TYPE)) {
            head.append(" @Deprecated");
        }
        lines.add(head.toString());
        String prefix = type.name() + " ";
        if (!type.enumConstants().isEmpty()) {
            lines.add(prefix + "enum constants " + String.join(", ", type.enumConstants()));
        }
        type.fields().forEach((name, what) -> lines.add(prefix + "field " + name + ": " + what
                + (type.deprecated().contains(name) ? " @Deprecated" : "")));
        type.methods().forEach((name, what) -> lines.add(prefix + "method " + name + ": " + what
                + (type.deprecated().contains(name) ? " @Deprecated" : "")));
        return lines;
    }
}
