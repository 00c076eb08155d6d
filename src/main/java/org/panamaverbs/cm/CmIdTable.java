package org.panamaverbs.cm;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The open ids of one channel, by the slot number each id carries in its {@code rdma_cm_id.context}: an
 * event names its id by pointer, and finding the Java object through the slot is an array read, where a map
 * keyed by the address would box it on every event. A request's new id arrives carrying its listener's slot
 * (librdmacm copies {@code context}), so a lookup also compares the address.
 */
final class CmIdTable {
    private volatile AtomicReferenceArray<CmId> slots = new AtomicReferenceArray<>(16);
    /** Free slot numbers, and the ids oldest first; both guarded by this. */
    private int[] free = new int[0];
    private int freeCount;
    private int used;
    private final Set<CmId> creationOrder = new LinkedHashSet<>();

    /** Adds {@code id} and returns its slot number, which the caller stores in the id's {@code context}. */
    synchronized int add(CmId id) {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            slot = used++;
            if (slot == slots.length()) {
                AtomicReferenceArray<CmId> larger = new AtomicReferenceArray<>(slots.length() * 2);
                for (int i = 0; i < slot; i++) {
                    larger.set(i, slots.get(i));
                }
                slots = larger;
            }
        }
        slots.set(slot, id);
        creationOrder.add(id);
        return slot;
    }

    synchronized void remove(CmId id, int slot) {
        if (slots.get(slot) != id) {
            return;
        }
        slots.set(slot, null);
        if (freeCount == free.length) {
            free = java.util.Arrays.copyOf(free, Math.max(16, free.length * 2));
        }
        free[freeCount++] = slot;
        creationOrder.remove(id);
    }

    /** The open id in {@code slot} whose native id is at {@code address}, or null. Allocates nothing. */
    CmId find(long slot, long address) {
        AtomicReferenceArray<CmId> now = slots;
        if (slot < 0 || slot >= now.length()) {
            return null;
        }
        CmId id = now.get((int) slot);
        return id != null && id.address() == address ? id : null;
    }

    /** The open ids, oldest first (a copy). */
    synchronized List<CmId> snapshot() {
        return List.copyOf(creationOrder);
    }
}
