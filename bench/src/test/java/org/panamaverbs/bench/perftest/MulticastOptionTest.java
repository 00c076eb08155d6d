package org.panamaverbs.bench.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;
import org.panamaverbs.verbs.Gid;

/** {@code -g} and {@code -M} as perftest reads them, and the combinations refused before any device is opened. */
class MulticastOptionTest {

    @Test
    void theDefaultGroupIsPerftestsAndAnIbSendLatClientTakesTheNext() throws Exception {
        Multicast m = new Multicast();
        assertEquals(Gid.of(InetAddress.getByName("ff01:0:2:c985::")), m.group(false));
        assertEquals(Gid.of(InetAddress.getByName("ff01:0:2:c985::1")), m.group(true));
        m.mgid = "255:14:0:0:0:0:0:0:0:0:0:0:0:0:0:9";
        assertEquals(Gid.of(InetAddress.getByName("ff0e::9")), m.group(false));
        assertEquals(m.group(false), m.group(true), "a group -M names is both sides'");
    }

    @Test
    void mgidNumbersAreReadAsStrtollWithBaseZero() {
        byte[] raw = Multicast.parse("0xff:016:0:0:0:0:0:0:0:0:0:0:0:0:0:255");
        assertEquals((byte) 0xff, raw[0]);
        assertEquals(14, raw[1], "a leading 0 is octal");
        assertEquals((byte) 255, raw[15]);
        assertArrayEquals(new byte[16], Multicast.parse("0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0"));
    }

    @Test
    void malformedMgidsAreRefusedInOneLine() {
        for (String bad : new String[] {"ff0e::1", "1:2:3", "256:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0",
            "x:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0"}) {
            PerftestException e = assertThrows(PerftestException.class, () -> Multicast.parse(bad));
            assertTrue(e.getMessage().contains("perftest's MGID is 16 numbers from 0 to 255"), e.getMessage());
            assertEquals(1, e.getMessage().lines().count());
        }
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "-g", "-M", "ff0e::1"), 1,
                "-M ff0e::1: perftest's MGID", "ib_send_bw");
    }

    @Test
    void multicastRefusesWhatPerftestRefuses() {
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "-g", "-b"), 1,
                "Bidirectional mode not supported in multicast", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "-g", "-q", "2"), 1,
                "Only 1 QP supported in multicast", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "-g", "-R"), 1,
                "Perftest still doesn't support Multicast with rdma_cm", "ib_send_lat");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "-g", "--reversed", "127.0.0.1"), 1,
                "-g with --reversed", "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_write_bw", "-g"), 1, "multicast: the SEND tools only",
                "ib_write_bw");
    }

    @Test
    void connectionlessIsAMulticastServerThatRunsInfinitely() {
        String refusal = "Using Connectionless server only available in Multicast, UD BW with RUN INFINITELY tests";
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--connectionless", "--run_infinitely"), 1,
                refusal, "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--connectionless", "-g"), 1, refusal,
                "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_bw", "--connectionless", "-g", "--run_infinitely",
                "127.0.0.1"), 1, refusal, "ib_send_bw");
        CommandLineTest.assertOneLine(CommandLineTest.run("ib_send_lat", "--connectionless"), 1,
                "ib_send_bw's server only", "ib_send_lat");
    }

    @Test
    void validationForcesUd() {
        Multicast m = new Multicast();
        m.enabled = true;
        PerftestOptions o = new PerftestOptions();
        o.connection = "RC";
        o.queuePairs = 1;
        m.applyTo(o, "ib_send_bw", true);
        assertTrue(o.isUd(), "perftest runs multicast on UD whatever -c says");
        assertTrue(o.multicast);
        assertEquals(m.group(false), o.multicastGroup, "the server's group");
    }

    @Test
    void aGroupsAddressIsPrintedWithItsLabel() throws Exception {
        Gid group = Gid.of(InetAddress.getByName("ff01:0:2:c985::"));
        PeerAddress a = new PeerAddress(0, 1, Multicast.GROUP_QPN, 0x1234, 0, 0, group, 0);
        assertEquals(" local address: LID 0000 QPN 0xffffff PSN 0x1234\n"
                + " MGID: 255:01:00:00:00:02:201:133:00:00:00:00:00:00:00:00\n", a.lines("local", false, true, "MGID"));
    }
}
