package org.panamaverbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.panamaverbs.ffi.__pthread_mutex_s;
import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_cq;
import org.panamaverbs.ffi.ibv_qp;
import org.panamaverbs.ffi.ibv_srq;
import org.panamaverbs.ffi.pthread_mutex_t;
import org.panamaverbs.ffi.verbs_context;

/**
 * The layouts of the verbs structs whose shape depends on the CPU architecture, selected for the running JVM
 * from {@code os.arch}.
 *
 * <p>The generated bindings ({@code org.panamaverbs.ffi}) come from jextract on linux-x86_64. Between x86_64
 * and aarch64 (both LP64, same verbs.h) the only difference in the structs this library binds is glibc's
 * {@code pthread_mutex_t}: 40 bytes on x86_64, 48 on aarch64, whose {@code struct __pthread_mutex_s} also
 * differs (x86_64 splits {@code int __spins} into {@code short __spins, __elision}). So every struct that embeds a mutex by value
 * ({@code ibv_context}, {@code ibv_cq}, {@code ibv_qp}, {@code ibv_srq}) moves its members after the mutex and
 * grows, and so does {@code verbs_context}, which ends with an {@code ibv_context}. On aarch64 this class
 * derives those layouts from the generated ones by putting glibc's aarch64 mutex in place of the x86_64 one
 * and laying the members out again with C's rules; ArchitectureLayoutTest checks every member of every
 * generated struct, so derived, against C compiled for aarch64 and run under qemu-aarch64.
 *
 * <p>Hand-written code reads an architecture-dependent struct only through these layouts, or through a
 * generated accessor of a member that sits at the same place on both architectures (ArchitectureLayoutTest
 * checks the sources for that too).
 */
public final class NativeLayouts {

    /** The CPU architectures whose struct layouts this library knows. */
    public enum Architecture {
        /** linux-x86_64: the generated layouts as they are. */
        X86_64,
        /** linux-aarch64: the generated layouts with glibc's aarch64 {@code pthread_mutex_t}. */
        AARCH64;

        /**
         * The architecture named by a value of the {@code os.arch} system property.
         *
         * @throws UnsupportedOperationException for any other architecture, naming it
         */
        public static Architecture of(String osArch) {
            Architecture known = recognise(osArch);
            if (known == null) {
                throw new UnsupportedOperationException(unsupportedMessage(osArch));
            }
            return known;
        }

        private static Architecture recognise(String osArch) {
            return switch (osArch == null ? "" : osArch) {
                case "amd64", "x86_64" -> X86_64;
                case "aarch64" -> AARCH64;
                default -> null;
            };
        }
    }

    /** The layouts hand-written code needs for the architecture-dependent structs. */
    public record Selected(Architecture architecture, GroupLayout ibvContext, GroupLayout verbsContext,
            GroupLayout ibvCq, GroupLayout ibvQp, GroupLayout ibvSrq) {
    }

    /** glibc's {@code struct __pthread_mutex_s} on aarch64: {@code int __spins} where x86_64 has two shorts. */
    private static final StructLayout AARCH64_PTHREAD_MUTEX_S = MemoryLayout.structLayout(
            JAVA_INT.withName("__lock"),
            JAVA_INT.withName("__count"),
            JAVA_INT.withName("__owner"),
            JAVA_INT.withName("__nusers"),
            JAVA_INT.withName("__kind"),
            JAVA_INT.withName("__spins"),
            MemoryLayout.structLayout(
                    ADDRESS.withName("__prev"),
                    ADDRESS.withName("__next")).withName("__list")).withName("__pthread_mutex_s");

    /** {@code pthread_mutex_t} of glibc on aarch64: {@code __SIZEOF_PTHREAD_MUTEX_T} is 48 (bits/pthreadtypes-arch.h). */
    private static final UnionLayout AARCH64_PTHREAD_MUTEX_T = MemoryLayout.unionLayout(
            AARCH64_PTHREAD_MUTEX_S.withName("__data"),
            MemoryLayout.sequenceLayout(48, JAVA_BYTE).withName("__size"),
            JAVA_LONG.withName("__align")).withName("pthread_mutex_t");

    // The x86_64 layouts (compared without their names) and their aarch64 replacements. A class of its own: the
    // generated mutex classes' initializers make method handles, which an x86_64 JVM need not pay for.
    private static final class Aarch64 {
        static final Map<MemoryLayout, MemoryLayout> REPLACEMENTS = Map.of(
                pthread_mutex_t.layout().withoutName(), AARCH64_PTHREAD_MUTEX_T,
                __pthread_mutex_s.layout().withoutName(), AARCH64_PTHREAD_MUTEX_S);
    }

    private static final String OS_ARCH = System.getProperty("os.arch");
    /** Null on an architecture this library does not know; {@link #selected()} then says so. */
    private static final Selected SELECTED = select(Architecture.recognise(OS_ARCH));

    private NativeLayouts() {
    }

    private static Selected select(Architecture architecture) {
        if (architecture == null) {
            return null;
        }
        return new Selected(architecture,
                forArchitecture(ibv_context.layout(), architecture),
                forArchitecture(verbs_context.layout(), architecture),
                forArchitecture(ibv_cq.layout(), architecture),
                forArchitecture(ibv_qp.layout(), architecture),
                forArchitecture(ibv_srq.layout(), architecture));
    }

    /**
     * The layouts for the running JVM's architecture.
     *
     * @throws UnsupportedOperationException on an architecture other than x86_64 and aarch64, naming it
     */
    public static Selected selected() {
        Selected s = SELECTED;
        if (s == null) {
            throw new UnsupportedOperationException(unsupportedMessage(OS_ARCH));
        }
        return s;
    }

    /**
     * Fails early, with the architecture named, where the struct layouts are unknown.
     *
     * @throws UnsupportedOperationException on an architecture other than x86_64 and aarch64
     */
    public static void requireSupportedArchitecture() {
        selected();
    }

    private static String unsupportedMessage(String osArch) {
        return "Panama Verbs knows the verbs struct layouts of linux-x86_64 and linux-aarch64 only; this JVM's"
                + " os.arch is '" + osArch + "'";
    }

    /**
     * The layout of a generated struct or union on {@code architecture}: the generated layout itself on
     * x86_64, where jextract ran; on aarch64 the same members with glibc's aarch64 {@code pthread_mutex_t},
     * laid out again (offsets, padding, size) as C does.
     */
    public static GroupLayout forArchitecture(GroupLayout generated, Architecture architecture) {
        if (architecture == Architecture.X86_64) {
            return generated;
        }
        return (GroupLayout) relayout(generated, Aarch64.REPLACEMENTS);
    }

    /** The byte offset of {@code member} (a top-level member name) in {@code layout}. */
    public static long offset(GroupLayout layout, String member) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(member));
    }

    private static MemoryLayout relayout(MemoryLayout layout, Map<MemoryLayout, MemoryLayout> replacements) {
        MemoryLayout replacement = replacements.get(layout.withoutName());
        if (replacement != null) {
            return layout.name().map(replacement::withName).orElse(replacement.withoutName());
        }
        MemoryLayout result;
        if (layout instanceof SequenceLayout sequence) {
            result = MemoryLayout.sequenceLayout(sequence.elementCount(), relayout(sequence.elementLayout(), replacements));
        } else if (layout instanceof GroupLayout group) {
            List<MemoryLayout> members = new ArrayList<>();
            for (MemoryLayout member : group.memberLayouts()) {
                if (!(member instanceof PaddingLayout)) {
                    members.add(relayout(member, replacements));
                }
            }
            result = group instanceof StructLayout ? struct(members, group.byteAlignment()) : union(members, group.byteAlignment());
        } else {
            return layout;
        }
        return layout.name().map(result::withName).orElse(result);
    }

    /** C's struct rules: each member at the next multiple of its alignment, the size a multiple of the struct's. */
    private static StructLayout struct(List<MemoryLayout> members, long generatedAlignment) {
        List<MemoryLayout> laidOut = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (MemoryLayout member : members) {
            long pad = padding(offset, member.byteAlignment());
            if (pad > 0) {
                laidOut.add(MemoryLayout.paddingLayout(pad));
            }
            laidOut.add(member);
            offset += pad + member.byteSize();
            alignment = Math.max(alignment, member.byteAlignment());
        }
        alignment = Math.max(alignment, generatedAlignment);
        long tail = padding(offset, alignment);
        if (tail > 0) {
            laidOut.add(MemoryLayout.paddingLayout(tail));
        }
        return MemoryLayout.structLayout(laidOut.toArray(MemoryLayout[]::new));
    }

    /** C's union rules: the largest member, rounded up to the union's alignment. */
    private static UnionLayout union(List<MemoryLayout> members, long generatedAlignment) {
        long size = 0;
        long alignment = generatedAlignment;
        for (MemoryLayout member : members) {
            size = Math.max(size, member.byteSize());
            alignment = Math.max(alignment, member.byteAlignment());
        }
        List<MemoryLayout> laidOut = new ArrayList<>(members);
        long rounded = size + padding(size, alignment);
        if (rounded > size) {
            laidOut.add(MemoryLayout.paddingLayout(rounded));
        }
        return MemoryLayout.unionLayout(laidOut.toArray(MemoryLayout[]::new));
    }

    private static long padding(long offset, long alignment) {
        return (alignment - offset % alignment) % alignment;
    }
}
