package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.GidType;
import org.panamaverbs.verbs.LinkLayer;

/** {@code -z}, {@code --ipv6}, {@code --ipv6-addr}, {@code --bind_source_ip}, {@code --dlid}, {@code --force-link}. */
class ExchangeOptionsTest {

    private static GidEntry entry(int index, String address, GidType type) throws Exception {
        return new GidEntry(index, 1, Gid.of(InetAddress.getByName(address)), type, 3);
    }

    @Test
    void theDefaultGidIsPerftestsBestByFamilyScopeAndRoceVersion() throws Exception {
        // rxe: fe80:: (RoCE v2) at 0, the IPv4-mapped address at 1
        List<GidEntry> rxe = List.of(entry(0, "fe80::5054:ff:fe12:3456", GidType.ROCE_V2),
                entry(1, "10.250.0.1", GidType.ROCE_V2));
        assertEquals(1, BestGid.index(rxe, false));
        assertEquals(0, BestGid.index(rxe, true), "--ipv6");
        // mlx5 with both versions per address: v2 wins within a family, a global IPv6 address over fe80::
        List<GidEntry> mlx5 = List.of(entry(0, "fe80::1", GidType.ROCE_V1), entry(1, "fe80::1", GidType.ROCE_V2),
                entry(2, "2001:db8::1", GidType.ROCE_V1), entry(3, "2001:db8::1", GidType.ROCE_V2),
                entry(4, "192.168.1.5", GidType.ROCE_V1), entry(5, "192.168.1.5", GidType.ROCE_V2));
        assertEquals(5, BestGid.index(mlx5, false));
        assertEquals(3, BestGid.index(mlx5, true));
        // an IPv4 link-local address loses to a routable one, the family still first
        List<GidEntry> linkLocal = List.of(entry(0, "169.254.3.4", GidType.ROCE_V2), entry(1, "fe80::1", GidType.ROCE_V2),
                entry(2, "10.0.0.1", GidType.ROCE_V1));
        assertEquals(2, BestGid.index(linkLocal, false));
        assertEquals(0, BestGid.index(List.of(), false));
    }

    @Test
    void forceLinkTakesPerftestsNames() {
        assertEquals(LinkLayer.INFINIBAND, PerftestOptions.linkLayerNamed("ib"));
        assertEquals(LinkLayer.ETHERNET, PerftestOptions.linkLayerNamed("ETHERNET"));
        assertEquals(LinkLayer.ETHERNET, PerftestOptions.linkLayerNamed("Ethernet2"), "C compares the first 8 letters");
        assertNull(PerftestOptions.linkLayerNamed("roce"));
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--force-link", "roce"), 1,
                "Invalid link layer value should be IB or ETHERNET");
    }

    @Test
    void sourceAddressesAreLiteralsAndAnIpv6OneNeedsIpv6Addr() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--bind_source_ip", "fe80::1", "10.0.0.1"), 1,
                "is IPv6: it needs --ipv6-addr");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--bind_source_ip", "localhost", "10.0.0.1"),
                1, "Invalid source address");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "--dlid", "70000"), 1,
                "--dlid must be a LID from 0 to 65535");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-z", "--loopback"), 1,
                "-z exchanges with a peer");
    }

    @Test
    void theServerIsReachedInTheFamilyAsked() {
        assertInstanceOf(Inet4Address.class, PerftestWire.serverAddress("127.0.0.1", false));
        assertInstanceOf(Inet6Address.class, PerftestWire.serverAddress("::1", true));
        PerftestException none = assertThrows(PerftestException.class, () -> PerftestWire.serverAddress("127.0.0.1", true));
        assertTrue(none.getMessage().contains("has no IPv6 address"), none.getMessage());
    }

    @Test
    void anIpv6ExchangeCarriesTheParametersFromABoundSource() throws Exception {
        // the TCP exchange itself, both sides in this JVM: a server on ::, a client from ::1 to ::1
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        AtomicInteger heard = new AtomicInteger(-1);
        Thread server = Thread.ofPlatform().start(() -> {
            try (PerftestWire wire = PerftestWire.accept(port, true, Duration.ofSeconds(20))) {
                heard.set(wire.exchangeInt("probe", 7, Duration.ofSeconds(20)));
            }
        });
        Thread.sleep(200); // the listener binds first, as perftest's server is started first
        try (PerftestWire wire = PerftestWire.connect("::1", port, true, InetAddress.getByName("::1"),
                Duration.ofSeconds(20))) {
            assertEquals(7, wire.exchangeInt("probe", 8, Duration.ofSeconds(20)));
        }
        server.join(20_000);
        assertEquals(8, heard.get());
    }
}
