package org.panamaverbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * errno captured right after a downcall ({@code Linker.Option.captureCallState("errno")}). jextract's
 * handles do not capture errno, and by the time Java could call {@code __errno_location()} the JVM may
 * have overwritten it, so every verb that reports failure through errno (NULL returns of
 * {@code ibv_create_*}, {@code ibv_reg_mr}, {@code ibv_get_device_list}, {@code rdma_*}) is bound a
 * second time here with the capture option. Control path: one small confined arena per call; a path that must not
 * allocate keeps a buffer of its own ({@link #allocateBuffer}, {@link #errnoIn}).
 */
public final class CallState implements AutoCloseable {
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private final Arena arena;
    private final MemorySegment segment;

    private CallState() {
        arena = Arena.ofConfined();
        segment = arena.allocate(LAYOUT);
    }

    /** A fresh capture buffer; close it when the call and the errno check are done. */
    public static CallState open() {
        return new CallState();
    }

    /** The buffer to pass as the first argument of a handle made by {@link #capturingErrno}. */
    public MemorySegment segment() {
        return segment;
    }

    /** errno as the native function left it. */
    public int errno() {
        return segment.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
    }

    @Override
    public void close() {
        arena.close();
    }

    /** Bytes of a capture buffer, for a caller that keeps one of its own (a path that must not allocate). */
    public static long bufferSize() {
        return LAYOUT.byteSize();
    }

    /**
     * A capture buffer of its own in {@code arena}, for a path that must not allocate. Exactly the capture layout:
     * a downcall given a larger buffer makes a slice of it on every call (40 bytes, even in C2-compiled code).
     */
    public static MemorySegment allocateBuffer(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** errno as the native function left it in {@code buffer}, a capture buffer of {@link #bufferSize()} bytes. */
    public static int errnoIn(MemorySegment buffer) {
        return buffer.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
    }

    /**
     * A downcall handle for {@code address} that takes a capture buffer as its first argument.
     *
     * @param address    the symbol (from the generated {@code xxx$address()})
     * @param descriptor its C signature (from the generated {@code xxx$descriptor()})
     */
    public static MethodHandle capturingErrno(MemorySegment address, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(address, descriptor, CAPTURE_ERRNO);
    }

    /** {@link #capturingErrno(MemorySegment, FunctionDescriptor)} for {@code function}'s address and C signature. */
    public static MethodHandle capturingErrno(NativeFunction function) {
        return capturingErrno(function.address(), function.descriptor());
    }

    /**
     * A downcall handle for a function pointer (a provider's operation), which takes the pointer as its first argument
     * and a capture buffer as its second.
     *
     * @param descriptor the operation's C signature
     */
    public static MethodHandle capturingErrnoThroughPointer(FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(descriptor, CAPTURE_ERRNO);
    }

    /**
     * {@link #capturingErrno(MemorySegment, FunctionDescriptor)} for a variadic C function such as
     * {@code fcntl(int, int, ...)}: the linker must know where the variadic arguments start (the platform
     * ABI may pass them differently from named ones).
     *
     * @param firstVariadic the index in {@code descriptor}'s arguments of the first variadic one
     */
    public static MethodHandle capturingErrno(MemorySegment address, FunctionDescriptor descriptor, int firstVariadic) {
        return Linker.nativeLinker().downcallHandle(address, descriptor, CAPTURE_ERRNO,
                Linker.Option.firstVariadicArg(firstVariadic));
    }
}
