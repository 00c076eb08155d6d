package org.panamaverbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Test;

/**
 * A lifetime makes its arena with the first view and only then costs a handshake to end; a view throws once the
 * lifetime ended, and no view is made after.
 */
class LivenessTest {

    @Test
    void aLifetimeWithoutViewsEndsWithoutClosingAnArena() {
        Liveness liveness = new Liveness();
        assertFalse(liveness.end("object"), "no view was made, so no arena to close");
        assertFalse(liveness.end("object"), "ending again does nothing");
        try (Arena memory = Arena.ofConfined()) {
            MemorySegment raw = MemorySegment.ofAddress(memory.allocate(8).address()).reinterpret(8);
            assertThrows(IllegalStateException.class, () -> liveness.scope(raw), "no view after the end");
        }
    }

    @Test
    void viewsReadWhileAliveAndThrowAfterTheEnd() {
        Liveness liveness = new Liveness();
        try (Arena memory = Arena.ofConfined()) {
            MemorySegment struct = memory.allocate(8);
            struct.set(ValueLayout.JAVA_LONG, 0, 42);
            MemorySegment raw = MemorySegment.ofAddress(struct.address()).reinterpret(8);
            MemorySegment view = liveness.scope(raw);
            MemorySegment second = liveness.scope(raw);
            assertEquals(42, view.get(ValueLayout.JAVA_LONG, 0));
            assertTrue(view.isReadOnly());
            assertTrue(liveness.end("object"), "the views' arena was closed");
            assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_LONG, 0));
            assertThrows(IllegalStateException.class, () -> second.get(ValueLayout.JAVA_LONG, 0));
            assertFalse(liveness.end("object"), "ending again closes nothing");
        }
    }
}
