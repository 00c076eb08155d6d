package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.ffi.ibv_context;
import org.panamaverbs.ffi.ibv_device;
import org.panamaverbs.ffi.ibv_gid;
import org.panamaverbs.ffi.ibv_gid_entry;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.SysfsGidAttributes;
import org.panamaverbs.internal.Unchecked;
import org.panamaverbs.internal.VerbsSymbols;

/**
 * Reads a context's GID tables ({@link Context#gidTable(int)}): with {@code _ibv_query_gid_table} where libibverbs
 * has it (rdma-core 32 and later), else slot by slot with {@code ibv_query_gid} and the types from sysfs, as
 * libibverbs' own fallback does, so that profile detection and GID choice see the same table on every release.
 */
final class GidTableQuery {
    /** {@code ibv_query_gid}, for the GID table on a libibverbs without {@code _ibv_query_gid_table}. */
    private static final MethodHandle QUERY_GID = CallState.capturingErrno(NativeFunction.IBV_QUERY_GID);

    private GidTableQuery() {
    }

    /** The GID tables of every port, one list (what profile detection and {@link Context#capabilities()} read). */
    static List<GidEntry> ofAllPorts(Context context) {
        List<GidEntry> gids = new ArrayList<>();
        for (int port = 1; port <= context.attributes().physicalPortCount(); port++) {
            gids.addAll(context.gidTable(port));
        }
        return gids;
    }

    /**
     * The populated entries of {@code port}'s table, in {@code ibv_query_gid_table}'s order; the caller checked
     * that the context is open and has the port.
     */
    static List<GidEntry> ofPort(Context context, int port) {
        MethodHandle queryGidTable = context.symbols().handle(VerbsSymbols.Newer.QUERY_GID_TABLE);
        if (queryGidTable == null) {
            return bySlot(context, port);
        }
        // the call fills entries of every port: size the array for all of them
        int slots = 0;
        for (int p = 1; p <= context.attributes().physicalPortCount(); p++) {
            slots += context.queryPort(p).gidTableLength();
        }
        long entrySize = ibv_gid_entry.layout().byteSize();
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment entries = arena.allocate(ibv_gid_entry.layout(), Math.max(slots, 1));
            long n = (long) queryGidTable.invokeExact(state.segment(), context.handle(), entries, (long) slots, 0,
                    entrySize);
            if (n < 0) {
                throw new VerbsException("ibv_query_gid_table", n == -1 ? state.errno() : (int) -n,
                        "device " + context.name());
            }
            List<GidEntry> table = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                MemorySegment entry = entries.asSlice(i * entrySize, entrySize);
                int entryPort = ibv_gid_entry.port_num(entry);
                if (entryPort == port) {
                    table.add(new GidEntry(ibv_gid_entry.gid_index(entry), entryPort,
                            Gid.read(entry, ibv_gid_entry.gid$offset()),
                            GidType.of(ibv_gid_entry.gid_type(entry)), ibv_gid_entry.ndev_ifindex(entry)));
                }
            }
            return List.copyOf(table);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }

    /**
     * {@link #ofPort} without {@code _ibv_query_gid_table}: {@code ibv_query_gid} on every slot of the port's
     * table (an empty slot reads as the zero GID and is left out, as {@code ibv_query_gid_table} leaves it out),
     * then the type and the network device of each populated slot from the device's sysfs directory.
     */
    private static List<GidEntry> bySlot(Context context, int port) {
        PortAttributes portAttributes = context.queryPort(port);
        boolean ethernet = portAttributes.linkLayer() == LinkLayer.ETHERNET;
        MemorySegment handle = context.handle();
        MemorySegment deviceStruct = ibv_context.device(handle).reinterpret(ibv_device.layout().byteSize());
        Path sysfs = Path.of(deviceStruct.getString(ibv_device.ibdev_path$offset()));
        List<GidEntry> table = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment gid = arena.allocate(ibv_gid.layout());
            for (int index = 0; index < portAttributes.gidTableLength(); index++) {
                int rc = (int) QUERY_GID.invokeExact(state.segment(), handle, (byte) port, index, gid);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_gid", rc > 0 ? rc : state.errno(), "device " + context.name()
                            + " port " + port + " index " + index + " (reading " + sysfs + ")");
                }
                Gid value = Gid.read(gid, 0);
                if (!value.equals(Gid.ZERO)) {
                    table.add(new GidEntry(index, port, value,
                            GidType.of(SysfsGidAttributes.type(sysfs, port, index, ethernet)),
                            SysfsGidAttributes.netdevIndex(sysfs, port, index)));
                }
            }
            return List.copyOf(table);
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
