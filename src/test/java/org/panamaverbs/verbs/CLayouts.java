package org.panamaverbs.verbs;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.panamaverbs.ffi.ibverbs_h;

/**
 * Measures, with a C compiler, the layout of every struct and union jextract generated (both packages): size,
 * alignment, and the offset and size of every named member at any depth. The C program is written from the
 * Java layouts themselves (one {@code offsetof}/{@code sizeof} per member), compiled for a {@link Target}, and
 * run there, natively or under qemu-user. A member the Java layout names but C does not have on that target
 * (e.g. glibc's x86_64-only {@code __pthread_mutex_s.__elision}) is reported as {@link #ABSENT}.
 */
final class CLayouts {
    /** The value measured for a member C does not have on the target. */
    static final long ABSENT = -1;

    /** Where the probe is compiled and run. */
    enum Target {
        X86_64("gcc", List.of(), "gcc"),
        /** Statically linked, so qemu-aarch64 needs no aarch64 libc at run time. */
        AARCH64("aarch64-linux-gnu-gcc", List.of("qemu-aarch64"), "gcc-aarch64-linux-gnu, libc6-dev-arm64-cross");

        final String compiler;
        final List<String> runner;
        final String packages;

        Target(String compiler, List<String> runner, String packages) {
            this.compiler = compiler;
            this.runner = runner;
            this.packages = packages;
        }
    }

    /** A generated struct or union: its Java class name, the C type to name in the probe, its layout. */
    record Struct(String javaName, String cType, GroupLayout layout) {
    }

    private CLayouts() {
    }

    /** Every top-level generated class with a {@code layout()}, in {@code org.panamaverbs.ffi} and {@code .rdmacm}. */
    static List<Struct> generatedStructs() throws IOException, ReflectiveOperationException, URISyntaxException {
        Path classes = Path.of(ibverbs_h.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Struct> structs = new ArrayList<>();
        for (String pkg : List.of("org.panamaverbs.ffi", "org.panamaverbs.ffi.rdmacm")) {
            Path dir = classes.resolve(pkg.replace('.', '/'));
            List<String> names;
            try (Stream<Path> files = Files.list(dir)) {
                names = files.map(p -> p.getFileName().toString())
                        .filter(n -> n.endsWith(".class") && !n.contains("$"))
                        .map(n -> n.substring(0, n.length() - ".class".length())).sorted().toList();
            }
            for (String name : names) {
                Class<?> type = Class.forName(pkg + "." + name, false, CLayouts.class.getClassLoader());
                Method layout;
                try {
                    layout = type.getMethod("layout");
                } catch (NoSuchMethodException e) {
                    continue; // a header class or a function-pointer type
                }
                if (!Modifier.isStatic(layout.getModifiers()) || !GroupLayout.class.isAssignableFrom(layout.getReturnType())) {
                    continue;
                }
                GroupLayout group = (GroupLayout) layout.invoke(null);
                String layoutName = group.name().orElseThrow();
                // jextract names the layout of a typedef'd anonymous struct/union "$anon$line:col"
                String cType = layoutName.startsWith("$anon$") ? name
                        : (group instanceof StructLayout ? "struct " : "union ") + layoutName;
                structs.add(new Struct(name, cType, group));
            }
        }
        return structs;
    }

    /**
     * What {@code layouts} say, keyed as the probe prints: {@code T size}, {@code T align},
     * {@code T.a.b offset}, {@code T.a.b size} ({@code T} the Java class name).
     */
    static Map<String, Long> describe(Map<String, GroupLayout> layouts) {
        Map<String, Long> values = new TreeMap<>();
        layouts.forEach((name, layout) -> {
            values.put(name + " size", layout.byteSize());
            values.put(name + " align", layout.byteAlignment());
            for (Member m : members(layout, "", 0)) {
                values.put(name + "." + m.path() + " offset", m.offset());
                values.put(name + "." + m.path() + " size", m.size());
            }
        });
        return values;
    }

    private record Member(String path, long offset, long size) {
    }

    /** Named members at any depth; an anonymous member ({@code $anon$...}) adds no name to the C path. */
    private static List<Member> members(GroupLayout group, String prefix, long base) {
        List<Member> found = new ArrayList<>();
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = base + (group instanceof StructLayout ? offset : 0);
            if (!(member instanceof PaddingLayout)) {
                String name = member.name().orElseThrow();
                boolean anonymous = name.startsWith("$anon$");
                String path = anonymous ? prefix : prefix + name;
                if (!anonymous) {
                    found.add(new Member(path, at, member.byteSize()));
                }
                if (member instanceof GroupLayout inner) {
                    found.addAll(members(inner, anonymous ? prefix : path + ".", at));
                }
            }
            offset += member.byteSize();
        }
        return found;
    }

    /**
     * Compiles and runs, on {@code target}, a probe of every value {@link #describe} gives for {@code layouts}
     * (keyed by Java class name; {@code structs} give the C type of each); returns the values C gives, keyed
     * the same, plus {@code constants} (C expressions keyed by name) keyed {@code const NAME}.
     *
     * The test is skipped, or failed under {@code panamaverbs.requireTools} ({@link RequiredTools}), naming the missing
     * tool and its Debian package when the target's compiler or runner or rdma-core's headers are not installed.
     */
    static Map<String, Long> measure(Target target, List<Struct> structs, Map<String, GroupLayout> layouts,
            Map<String, String> constants) throws IOException, InterruptedException {
        for (String tool : Stream.concat(Stream.of(target.compiler), target.runner.stream()).toList()) {
            RequiredTools.require(RequiredTools.onPath(tool), tool + " is not installed: the " + target
                    + " layout check needs it (Debian: " + (tool.startsWith("qemu") ? "qemu-user" : target.packages)
                    + "; scripts/setup installs it)");
        }
        RequiredTools.gccWithRdmaHeaders();
        Map<String, String> cTypes = new HashMap<>();
        for (Struct s : structs) {
            cTypes.put(s.javaName(), s.cType());
        }
        // one probe line per value, so a compile error names the line of a member C lacks
        Map<String, String> probes = new LinkedHashMap<>();
        for (String key : describe(layouts).keySet()) {
            String[] parts = key.split(" ");
            int dot = parts[0].indexOf('.');
            String javaName = dot < 0 ? parts[0] : parts[0].substring(0, dot);
            String type = cTypes.get(javaName);
            if (dot < 0) {
                probes.put(key, parts[1].equals("size") ? "sizeof(" + type + ")" : "_Alignof(" + type + ")");
            } else {
                String path = parts[0].substring(dot + 1);
                probes.put(key, parts[1].equals("offset") ? "offsetof(" + type + ", " + path + ")"
                        : "sizeof(((" + type + " *)0)->" + path + ")");
            }
        }
        constants.forEach((name, expression) -> probes.put("const " + name, expression));

        Path dir = Files.createDirectories(Path.of("target", "layout-probe-" + target.name().toLowerCase()));
        Path binary = dir.resolve("probe");
        Set<String> absent = new TreeSet<>();
        for (int attempt = 0; ; attempt++) {
            List<String> keys = probes.keySet().stream().filter(k -> !absent.contains(k)).toList();
            Path source = dir.resolve("probe.c");
            Files.writeString(source, program(keys, probes));
            List<String> command = new ArrayList<>(List.of(target.compiler, "-O0", "-w", "-o", binary.toString(), source.toString()));
            if (target == Target.AARCH64) {
                command.add(1, "-static");
                // rdma-core's headers are the same files for every architecture (Multi-Arch: same); libc's and
                // the kernel's come from the cross compiler's own aarch64 include directories
                command.add(1, "-isystem" + crossIncludes(dir));
            }
            ProcessResult compiled = run(command, 120);
            if (compiled.status() == 0) {
                break;
            }
            Set<Integer> badLines = new TreeSet<>();
            Matcher m = Pattern.compile(Pattern.quote(source.getFileName().toString()) + ":(\\d+):\\d+: error: .*has no member named")
                    .matcher(compiled.output());
            while (m.find()) {
                badLines.add(Integer.parseInt(m.group(1)));
            }
            if (badLines.isEmpty() || attempt == 4) {
                throw new AssertionError(target.compiler + " failed on " + source + ":\n" + compiled.output());
            }
            for (int line : badLines) {
                absent.add(keys.get(line - FIRST_PROBE_LINE));
            }
        }
        List<String> run = new ArrayList<>(target.runner);
        run.add(binary.toString());
        ProcessResult ran = run(run, 120);
        if (ran.status() != 0) {
            throw new AssertionError(String.join(" ", run) + " failed (" + ran.status() + "):\n" + ran.output());
        }
        Map<String, Long> values = new TreeMap<>();
        for (String line : ran.output().lines().toList()) {
            int space = line.lastIndexOf(' ');
            values.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
        absent.forEach(k -> values.put(k, ABSENT));
        return values;
    }

    private static final String PROBE_HEADER = """
            /* generated by CLayouts: one value per line */
            #include <stddef.h>
            #include <errno.h>
            #include <stdio.h>
            #include <fcntl.h>
            #include <poll.h>
            #include <sys/eventfd.h>
            #include <sys/socket.h>
            #include <infiniband/verbs.h>
            #include <rdma/rdma_cma.h>
            int main(void) {
            """;
    /** The line number of the first probe: the probes follow the header in the order of their keys. */
    private static final int FIRST_PROBE_LINE = (int) PROBE_HEADER.lines().count() + 1;

    private static String program(List<String> keys, Map<String, String> probes) {
        StringBuilder c = new StringBuilder(PROBE_HEADER);
        for (String key : keys) {
            c.append("printf(\"%s %lld\\n\", \"").append(key).append("\", (long long)(").append(probes.get(key)).append("));\n");
        }
        c.append("return 0;\n}\n");
        return c.toString();
    }

    /** A directory holding only rdma-core's header directories, for the cross compiler. */
    private static Path crossIncludes(Path dir) throws IOException {
        Path include = dir.resolve("rdma-core-include");
        Files.createDirectories(include);
        for (String sub : List.of("infiniband", "rdma")) {
            Path link = include.resolve(sub);
            if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(link, Path.of("/usr/include", sub));
            }
        }
        return include;
    }

    private record ProcessResult(int status, String output) {
    }

    private static ProcessResult run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " timed out after " + timeoutSeconds + " s");
        }
        return new ProcessResult(p.exitValue(), output);
    }
}
