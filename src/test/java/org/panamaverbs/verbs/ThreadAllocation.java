package org.panamaverbs.verbs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** How many bytes the current thread has allocated, for the tests that show a path allocates nothing. */
public final class ThreadAllocation {
    private ThreadAllocation() {
    }

    /**
     * {@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()} bound to this JVM's bean. Looked up
     * reflectively because the tests compile inside the module, which does not read java.management; a method handle
     * rather than {@code Method.invoke} so that reading the counter boxes nothing ({@code (long) h.invokeExact()}).
     */
    public static MethodHandle counter() throws ReflectiveOperationException {
        Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
        return MethodHandles.publicLookup().findVirtual(type, "getCurrentThreadAllocatedBytes", MethodType.methodType(long.class))
                .bindTo(bean);
    }
}
