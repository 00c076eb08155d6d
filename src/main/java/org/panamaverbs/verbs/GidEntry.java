package org.panamaverbs.verbs;

/**
 * {@code struct ibv_gid_entry}: one populated slot of a port's GID table, from
 * {@code ibv_query_gid_table}.
 *
 * @param index      the GID index to give a queue pair or address handle ({@code sgid_index})
 * @param port       the port number (from 1)
 * @param gid        the GID
 * @param type       IB, RoCE v1 or RoCE v2
 * @param netdevIndex the ifindex of the network device the GID belongs to (RoCE), or 0
 */
public record GidEntry(int index, int port, Gid gid, GidType type, int netdevIndex) {
}
