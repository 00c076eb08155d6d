package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.panamaverbs.internal.Libc;
import org.panamaverbs.internal.NativeLayouts;
import org.panamaverbs.internal.NativeLayouts.Architecture;
import org.panamaverbs.internal.SocketAddresses;

/**
 * The struct layouts the library selects for each architecture it supports agree with C for that architecture:
 * every member (offset and size, at any depth), size and alignment of every struct and union jextract generated,
 * plus the libc constants and sizes written by hand in {@code org.panamaverbs.internal} and the errno numbers of
 * {@link Errno}. x86_64 is compiled with
 * the host's gcc and run natively; aarch64 is cross-compiled ({@code aarch64-linux-gnu-gcc}, static) and run
 * under {@code qemu-aarch64}. A missing compiler or qemu skips the test with the tool named, and fails it under
 * {@code -Dpanamaverbs.requireTools=true}, as CI runs it (scripts/setup installs them).
 */
class ArchitectureLayoutTest {

    /** Constants and sizes the hand-written code uses, with the C expression that gives each. */
    private static final Map<String, String> C_CONSTANTS = new LinkedHashMap<>();
    private static final Map<String, Long> JAVA_CONSTANTS = new LinkedHashMap<>();

    static {
        constant("F_GETFL", "F_GETFL", Libc.F_GETFL);
        constant("F_SETFL", "F_SETFL", Libc.F_SETFL);
        constant("O_NONBLOCK", "O_NONBLOCK", Libc.O_NONBLOCK);
        constant("POLLIN", "POLLIN", Libc.POLLIN);
        constant("EFD_NONBLOCK", "EFD_NONBLOCK", Libc.EFD_NONBLOCK);
        constant("EFD_CLOEXEC", "EFD_CLOEXEC", Libc.EFD_CLOEXEC);
        constant("sizeof_pollfd", "sizeof(struct pollfd)", Libc.POLLFD_SIZE);
        constant("AF_INET", "AF_INET", SocketAddresses.AF_INET);
        constant("AF_INET6", "AF_INET6", SocketAddresses.AF_INET6);
        constant("sizeof_sockaddr_storage", "sizeof(struct sockaddr_storage)", SocketAddresses.STORAGE_SIZE);
        // Errno's table of names (errno values are the same numbers on both, asm-generic; this keeps it so)
        for (int value = 1; value < 200; value++) {
            String name = Errno.name(value);
            if (!name.startsWith("errno ")) {
                constant(name, name, value);
            }
        }
    }

    private static void constant(String name, String cExpression, long javaValue) {
        C_CONSTANTS.put(name, cExpression);
        JAVA_CONSTANTS.put("const " + name, javaValue);
    }

    /** The generated structs whose aarch64 layout differs from the generated (x86_64) one. */
    private static final Set<String> ARCHITECTURE_DEPENDENT = Set.of(
            "__pthread_mutex_s", "pthread_mutex_t", "ibv_context", "verbs_context", "ibv_cq", "ibv_qp", "ibv_srq");

    @Test
    void x86_64LayoutsAreThoseOfC() throws Exception {
        RequiredTools.amd64Host();
        compareWithC(Architecture.X86_64, CLayouts.Target.X86_64);
    }

    @Test
    void aarch64LayoutsAreThoseOfCUnderQemu() throws Exception {
        compareWithC(Architecture.AARCH64, CLayouts.Target.AARCH64);
    }

    private static void compareWithC(Architecture architecture, CLayouts.Target target) throws Exception {
        List<CLayouts.Struct> structs = CLayouts.generatedStructs();
        assertTrue(structs.size() >= 50, "found only " + structs.size() + " generated structs");
        Map<String, GroupLayout> selected = new LinkedHashMap<>();
        for (CLayouts.Struct s : structs) {
            selected.put(s.javaName(), NativeLayouts.forArchitecture(s.layout(), architecture));
        }
        Map<String, Long> expected = new TreeMap<>(CLayouts.describe(selected));
        expected.putAll(JAVA_CONSTANTS);
        Map<String, Long> measured = CLayouts.measure(target, structs, selected, C_CONSTANTS);

        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            Long c = measured.get(e.getKey());
            if (!e.getValue().equals(c)) {
                differences.add(e.getKey() + ": library " + e.getValue() + ", C "
                        + (c == null ? "nothing" : c == CLayouts.ABSENT ? "has no such member" : c));
            }
        }
        Set<String> unmeasured = new TreeSet<>(expected.keySet());
        unmeasured.removeAll(measured.keySet());
        Set<String> unasked = new TreeSet<>(measured.keySet());
        unasked.removeAll(expected.keySet());
        assertEquals(List.of(), List.of(unmeasured, unasked).stream().filter(x -> !x.isEmpty()).toList(),
                "the probe measures exactly what was asked");
        System.out.println("layouts: " + architecture + ": " + (expected.size() - differences.size()) + " of "
                + expected.size() + " values agree with C (" + structs.size() + " structs and unions, "
                + JAVA_CONSTANTS.size() + " constants)");
        if (!differences.isEmpty()) {
            fail(differences.size() + " of " + expected.size() + " " + architecture + " values differ from C:\n  "
                    + String.join("\n  ", differences));
        }
    }

    @Test
    void onlyTheStructsEmbeddingAMutexDifferOnAarch64() throws Exception {
        Set<String> differing = new TreeSet<>();
        for (CLayouts.Struct s : CLayouts.generatedStructs()) {
            if (!NativeLayouts.forArchitecture(s.layout(), Architecture.AARCH64).equals(s.layout())) {
                differing.add(s.javaName());
            }
        }
        assertEquals(new TreeSet<>(ARCHITECTURE_DEPENDENT), differing);
        for (Architecture a : Architecture.values()) {
            GroupLayout verbsContext = NativeLayouts.forArchitecture(org.panamaverbs.ffi.verbs_context.layout(), a);
            GroupLayout context = NativeLayouts.forArchitecture(org.panamaverbs.ffi.ibv_context.layout(), a);
            // ExtendedContext.op relies on verbs_get_ctx's container_of: ibv_context ends struct verbs_context
            assertEquals(verbsContext.byteSize(), NativeLayouts.offset(verbsContext, "context") + context.byteSize(), a.name());
        }
        assertEquals(48, NativeLayouts.forArchitecture(org.panamaverbs.ffi.pthread_mutex_t.layout(), Architecture.AARCH64).byteSize());
        assertEquals(40, org.panamaverbs.ffi.pthread_mutex_t.layout().byteSize());
    }

    @Test
    void theRunningJvmGetsTheX86_64Layouts() {
        NativeLayouts.Selected selected = NativeLayouts.selected();
        assertSame(Architecture.X86_64, selected.architecture());
        assertSame(org.panamaverbs.ffi.ibv_context.layout(), selected.ibvContext());
        assertSame(org.panamaverbs.ffi.ibv_qp.layout(), selected.ibvQp());
    }

    @Test
    void architecturesAreRecognisedFromOsArchAndOthersRefusedByName() {
        assertSame(Architecture.X86_64, Architecture.of("amd64"));
        assertSame(Architecture.X86_64, Architecture.of("x86_64"));
        assertSame(Architecture.AARCH64, Architecture.of("aarch64"));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> Architecture.of("riscv64"));
        assertTrue(e.getMessage().contains("'riscv64'"), e.getMessage());
    }

    private static final Set<String> WHOLE_STRUCT_ACCESSORS = Set.of("layout", "sizeof", "allocate", "allocateArray", "reinterpret", "asSlice");

    /**
     * Hand-written code reaches an architecture-dependent struct through {@link NativeLayouts}, or through a
     * generated accessor of a member at the same offset with the same size on both architectures; never through
     * its generated size or a member that moves.
     */
    @Test
    void handWrittenCodeReadsArchitectureDependentStructsSafely() throws IOException {
        Map<String, GroupLayout[]> byName = new TreeMap<>();
        for (String name : ARCHITECTURE_DEPENDENT) {
            GroupLayout x86 = generatedLayout(name);
            byName.put(name, new GroupLayout[] {x86, NativeLayouts.forArchitecture(x86, Architecture.AARCH64)});
        }
        Pattern use = Pattern.compile("\\b(" + String.join("|", byName.keySet()) + ")\\.([A-Za-z_][A-Za-z0-9_$]*)\\s*\\(");
        List<String> unsafe = new ArrayList<>();
        int checked = 0;
        List<Path> sources;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java/org/panamaverbs"))) {
            sources = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/ffi/") && !p.endsWith("NativeLayouts.java")).sorted().toList();
        }
        assertTrue(sources.size() > 20, "found only " + sources.size() + " hand-written sources");
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source);
            for (int i = 0; i < lines.size(); i++) {
                String trimmed = lines.get(i).strip();
                if (trimmed.startsWith("import ") || trimmed.startsWith("*") || trimmed.startsWith("//")) {
                    continue;
                }
                Matcher m = use.matcher(lines.get(i));
                while (m.find()) {
                    checked++;
                    String struct = m.group(1);
                    String accessor = m.group(2).replaceAll("\\$(offset|layout)$", "");
                    GroupLayout[] layouts = byName.get(struct);
                    String where = source.getFileName() + ":" + (i + 1) + " " + struct + "." + m.group(2);
                    if (WHOLE_STRUCT_ACCESSORS.contains(accessor)) {
                        unsafe.add(where + ": the size differs on aarch64, use NativeLayouts.selected()");
                    } else if (!sameOnBoth(layouts, accessor, m.group(2).endsWith("$offset"))) {
                        unsafe.add(where + ": the member moves on aarch64, use NativeLayouts.selected()");
                    }
                }
            }
        }
        assertTrue(checked > 0, "no use of an architecture-dependent struct found: the scan is broken");
        assertEquals(List.of(), unsafe);
    }

    /** Same offset on both architectures and, unless only the offset is taken, the same size. */
    private static boolean sameOnBoth(GroupLayout[] layouts, String member, boolean offsetOnly) {
        MemoryLayout.PathElement path = MemoryLayout.PathElement.groupElement(member);
        return layouts[0].byteOffset(path) == layouts[1].byteOffset(path)
                && (offsetOnly || layouts[0].select(path).byteSize() == layouts[1].select(path).byteSize());
    }

    private static GroupLayout generatedLayout(String javaName) {
        try {
            return CLayouts.generatedStructs().stream().filter(s -> s.javaName().equals(javaName)).findFirst()
                    .orElseThrow().layout();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
