package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamaverbs.internal.NativeLibrary;
import org.panamaverbs.internal.SysfsGidAttributes;
import org.panamaverbs.internal.VerbsSymbols;
import org.panamaverbs.internal.VerbsSymbols.Newer;

/**
 * rdma-core 17 to 31 on the host, without a device: the installed libibverbs with its newer functions hidden
 * resolves to the fallbacks (the GID table slot by slot with types from sysfs, registration through
 * {@code ibv_reg_mr}), the one registration with no fallback is refused in one line naming the function, its
 * version, the release and what to install, and the library file names the rdma-core version. The fallbacks on a
 * real device: {@link OlderRdmaCoreDeviceTest}.
 */
class OlderRdmaCoreTest {
    /** CentOS/RHEL 7.9's libibverbs. */
    private static final Path CENTOS_7_9 = Path.of("/usr/lib64/libibverbs.so.1.5.22.4");

    @Test
    void theInstalledLibraryNamesItsVersionAndHasTheFunctionsThatVersionHas() {
        RequiredTools.libibverbs();
        VerbsSymbols system = VerbsSymbols.system();
        Path file = system.libraryFile();
        assertNotNull(file, "/proc/self/maps names the library");
        assertTrue(Files.isRegularFile(file) && !Files.isSymbolicLink(file), file + " is the real file, links resolved");
        assertTrue(file.getFileName().toString().startsWith("libibverbs.so.1."), file.toString());
        assertEquals(file, NativeLibrary.fileOf(SymbolLookup.libraryLookup(NativeLibrary.IBVERBS, Arena.global())
                .find("ibv_get_device_list").orElseThrow()));
        RdmaCore library = Rdma.rdmaCore();
        assertEquals(system.version(), library.version());
        assertEquals(file, library.libibverbs());
        assertEquals(system.fallbacks(), library.fallbacks());
        int major = library.majorVersion();
        assertTrue(major >= 17, "Panama Verbs supports rdma-core 17 and later; this is " + library);
        List<Newer> expectedMissing = major >= 32 ? List.of() : major >= 28 ? List.of(Newer.QUERY_GID_TABLE)
                : List.of(Newer.QUERY_GID_TABLE, Newer.REG_MR_IOVA2);
        assertEquals(expectedMissing, system.missing(), library.toString());
        assertTrue(library.toString().startsWith("rdma-core " + library.version() + " (" + file + ")"), library.toString());
    }

    @Test
    void hiddenFunctionsTakeTheirFallbacks() {
        RequiredTools.libibverbs();
        VerbsSymbols older = OlderRdmaCore.symbols(CENTOS_7_9);
        assertNull(older.handle(Newer.QUERY_GID_TABLE));
        assertNull(older.handle(Newer.REG_MR_IOVA2));
        assertEquals(List.of(Newer.QUERY_GID_TABLE, Newer.REG_MR_IOVA2), older.missing());
        assertEquals(List.of(
                "no _ibv_query_gid_table (IBVERBS_1.11, rdma-core 32): GID tables from ibv_query_gid, GID types and"
                        + " network devices from sysfs (as libibverbs before 32)",
                "no ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 28): memory registered with ibv_reg_mr; optional access"
                        + " flags (RELAXED_ORDERING) refused"), older.fallbacks());
        assertEquals("22.4", older.version());
        assertEquals("rdma-core 22.4 (/usr/lib64/libibverbs.so.1.5.22.4)", older.describe());

        // rdma-core 28 to 31: only the GID table is missing; the library's functions are the real ones
        VerbsSymbols v28 = VerbsSymbols.resolve(OlderRdmaCore.without(SymbolLookup.libraryLookup(NativeLibrary.IBVERBS,
                Arena.global()), Set.of("_ibv_query_gid_table")), null);
        assertEquals(VerbsSymbols.system().handle(Newer.REG_MR_IOVA2) != null ? List.of(Newer.QUERY_GID_TABLE)
                : List.of(Newer.QUERY_GID_TABLE, Newer.REG_MR_IOVA2), v28.missing());
        assertTrue(v28.describe().startsWith("rdma-core of unknown version, by its functions "), v28.describe());
    }

    @Test
    void registrationWithAnOptionalFlagAndNoIova2IsRefusedInOneLine() {
        RequiredTools.libibverbs();
        VerbsSymbols older = OlderRdmaCore.symbols(CENTOS_7_9);
        int plain = Access.bits(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        assertNull(MemoryRegion.optionalAccessRefusal(older, plain), "ibv_reg_mr takes these");
        int relaxed = plain | Access.RELAXED_ORDERING.bit();
        UnsupportedVerbException refusal = MemoryRegion.optionalAccessRefusal(older, relaxed);
        assertNotNull(refusal);
        String message = refusal.getMessage();
        assertEquals(1, message.lines().count(), message);
        assertEquals("ibv_reg_mr", refusal.verb());
        assertTrue(message.startsWith("ibv_reg_mr failed: not supported: access 0x100007 with an optional flag"
                + " (RELAXED_ORDERING) needs ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 28 or later), which this libibverbs"
                + " lacks: rdma-core 22.4 (/usr/lib64/libibverbs.so.1.5.22.4); register without Access.RELAXED_ORDERING,"
                + " or upgrade rdma-core to 28 or later ("), message);
        for (String hint : List.of("apt-get install --only-upgrade libibverbs1", "dnf upgrade rdma-core libibverbs",
                "zypper update rdma-core libibverbs1")) {
            assertTrue(message.contains(hint), message);
        }
        if (VerbsSymbols.system().handle(Newer.REG_MR_IOVA2) != null) {
            assertNull(MemoryRegion.optionalAccessRefusal(VerbsSymbols.system(), relaxed), "with ibv_reg_mr_iova2 it passes");
        }
    }

    @Test
    void theVersionIsReadFromTheLibraryFileName() {
        for (String[] name : new String[][] {
                {"libibverbs.so.1.1.17.1", "17.1"}, {"libibverbs.so.1.5.22.4", "22.4"}, {"libibverbs.so.1.8.28.0", "28.0"},
                {"libibverbs.so.1.14.44.0", "44.0"}, {"libibverbs.so.1.14.56.1", "56.1"}, {"libibverbs.so.1.0.13", "13"},
                {"libibverbs.so.1.0.0", null}, {"libibverbs.so.1", null}, {"libmlx5.so.1.24.44.0", null}}) {
            assertEquals(name[1], VerbsSymbols.resolve(n -> java.util.Optional.empty(), Path.of("/lib", name[0])).version(),
                    name[0]);
        }
        RdmaCore unknown = new RdmaCore(null, null, List.of());
        assertEquals(-1, unknown.majorVersion());
        assertEquals("rdma-core of unknown version (libibverbs.so.1)", unknown.toString());
        assertEquals(22, new RdmaCore("22.4", CENTOS_7_9, List.of()).majorVersion());
    }

    @Test
    void theLibraryFileIsTheMappingThatHoldsTheAddress() {
        List<String> maps = List.of(
                "7f0000000000-7f0000010000 r--p 00000000 08:01 123 /usr/lib64/libibverbs.so.1.5.22.4",
                "7f0000010000-7f0000020000 r-xp 00010000 08:01 123 /usr/lib64/libibverbs.so.1.5.22.4",
                "7f0000020000-7f0000030000 rw-p 00000000 00:00 0 ",
                "7f0000030000-7f0000040000 r-xp 00000000 00:2e 77 /tmp/rdma core/build/lib/librdmacm.so.1.1.22.4 (deleted)",
                "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]");
        assertEquals(CENTOS_7_9, NativeLibrary.fileOf(0x7f0000012345L, maps));
        assertNull(NativeLibrary.fileOf(0x7f0000020010L, maps), "anonymous memory");
        assertEquals(Path.of("/tmp/rdma core/build/lib/librdmacm.so.1.1.22.4"), NativeLibrary.fileOf(0x7f0000030000L, maps));
        assertNull(NativeLibrary.fileOf(0xffffffffff600010L, maps), "no file");
        assertNull(NativeLibrary.fileOf(0x1000L, maps));
    }

    @Test
    void gidTypesAndNetworkDevicesFromSysfsFollowLibibverbs(@TempDir Path sysfs) throws IOException {
        Path attributes = Files.createDirectories(sysfs.resolve("ports/1/gid_attrs"));
        Files.createDirectories(attributes.resolve("types"));
        Files.createDirectories(attributes.resolve("ndevs"));
        Files.writeString(attributes.resolve("types/0"), "IB/RoCE v1\n");
        Files.writeString(attributes.resolve("types/1"), "RoCE v2\n");
        Files.writeString(attributes.resolve("types/2"), "RoCE v3\n");
        NetworkInterface loopback = NetworkInterface.getByName("lo");
        Files.writeString(attributes.resolve("ndevs/1"), "lo\n");
        Files.writeString(attributes.resolve("ndevs/2"), "no-such-netdev0\n");

        assertEquals(SysfsGidAttributes.ROCE_V1, SysfsGidAttributes.type(sysfs, 1, 0, true), "IB/RoCE v1 on Ethernet");
        assertEquals(SysfsGidAttributes.IB, SysfsGidAttributes.type(sysfs, 1, 0, false), "IB/RoCE v1 on InfiniBand");
        assertEquals(SysfsGidAttributes.ROCE_V2, SysfsGidAttributes.type(sysfs, 1, 1, true));
        assertEquals(SysfsGidAttributes.UNKNOWN, SysfsGidAttributes.type(sysfs, 1, 2, true), "a type name not known");
        assertEquals(SysfsGidAttributes.UNKNOWN, SysfsGidAttributes.type(sysfs, 1, 3, true), "gid_attrs without the entry");
        assertEquals(SysfsGidAttributes.ROCE_V1, SysfsGidAttributes.type(sysfs, 2, 0, true),
                "no gid_attrs (kernels before 4.5): IB/RoCE v1");
        assertEquals(SysfsGidAttributes.IB, SysfsGidAttributes.type(sysfs, 2, 0, false));

        assertEquals(0, SysfsGidAttributes.netdevIndex(sysfs, 1, 0), "no network device");
        assertEquals(loopback == null ? 0 : loopback.getIndex(), SysfsGidAttributes.netdevIndex(sysfs, 1, 1));
        assertEquals(0, SysfsGidAttributes.netdevIndex(sysfs, 1, 2), "a device not in this namespace");
    }
}
