package org.panamaverbs.verbs;

/**
 * {@code struct ibv_sge}: a scatter-gather entry, a slice of a registered memory region. Made by
 * {@link MemoryRegion#sge(long, int)}, which checks the bounds.
 *
 * @param address the first byte's virtual address
 * @param length  the number of bytes
 * @param lkey    the region's local key
 */
public record Sge(long address, int length, int lkey) {
}
