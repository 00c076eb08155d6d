package org.panamaverbs.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.panamaverbs.bench.JsonText;
import org.panamaverbs.verbs.AtomicCapability;
import org.panamaverbs.verbs.Capability;
import org.panamaverbs.verbs.CapabilityVerdict;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.DeviceProfile;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.GidType;
import org.panamaverbs.verbs.LinkLayer;
import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.PortAttributes;
import org.panamaverbs.verbs.PortState;
import org.panamaverbs.verbs.RdmaCore;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.Transport;

/** The report's text and JSON forms on a recorded ESXi 6.5 guest (../shared/reference/pvrdma.md, spdk issue 2275). */
class ReportFormatTest {
    private static final String SRQ_REFUSAL = "ibv_create_srq failed: not supported: this device is PVRDMA HWv13"
            + " (ESXi 6.5)-class: max_srq = 0; shared receive queues need PVRDMA HWv14 (ESXi 6.7) or later";

    private static DeviceFacts esxi65() throws Exception {
        DeviceAttributes attributes = new DeviceAttributes("3.0.000", 0x005056fffeb2668cL, 0x005056fffeb2668cL, -1, 4096,
                0x15ad, 2080, 1, 32768, 1024, 0x00201400, 16, 16, 4096, 262144, 262144, 4096, 16, 16,
                AtomicCapability.NONE, 0, 0, 4096, 0, 0, 0, 1, 1);
        List<GidEntry> gids = List.of(
                new GidEntry(0, 1, Gid.of(InetAddress.getByName("fe80::250:56ff:feb2:668c")), GidType.ROCE_V1, 3),
                new GidEntry(1, 1, Gid.of(InetAddress.getByName("10.0.0.5")), GidType.ROCE_V1, 3));
        PortAttributes port = new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 6, 0x04010000, 0x7fffffffL,
                0, 0, 0, 1, 1, 5, LinkLayer.ETHERNET, 1);
        List<CapabilityVerdict> verdicts = List.of(
                new CapabilityVerdict(Capability.RC_QUEUE_PAIRS, CapabilityVerdict.Status.ALLOWED, "max_qp 32768", null),
                new CapabilityVerdict(Capability.UD_QUEUE_PAIR_COUNT, CapabilityVerdict.Status.LIMITED,
                        "at most 3 open at once per context", "ibv_create_qp failed: not supported: ... at most 3 UD queue pairs"),
                new CapabilityVerdict(Capability.SHARED_RECEIVE_QUEUES, CapabilityVerdict.Status.REFUSED, "max_srq 0", SRQ_REFUSAL),
                new CapabilityVerdict(Capability.ROCE_V2, CapabilityVerdict.Status.ABSENT, "no RoCE v2 GID on any port", null));
        return new DeviceFacts(new RdmaDevice("vmw_pvrdma0", 0x005056fffeb2668cL, Transport.IB), attributes,
                List.of(new DeviceFacts.PortFacts(1, port, gids)), DeviceProfile.detect(attributes, gids), verdicts);
    }

    /** CentOS 7.9's rdma-core, which lacks both newer functions. */
    private static final RdmaCore CENTOS_7_9 = new RdmaCore("22.4", Path.of("/usr/lib64/libibverbs.so.1.5.22.4"),
            List.of("no ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 28): memory registered with ibv_reg_mr",
                    "no _ibv_query_gid_table (IBVERBS_1.11, rdma-core 32): GID tables from ibv_query_gid"));

    @Test
    void textShowsTheLibraryIdentityLimitsGidsProfileAndEveryVerdict() throws Exception {
        String text = ReportFormat.text(CENTOS_7_9, List.of(esxi65()));
        assertTrue(text.startsWith("rdma-core 22.4 (/usr/lib64/libibverbs.so.1.5.22.4)\n"
                + "  fallback: no ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 28): memory registered with ibv_reg_mr\n"
                + "  fallback: no _ibv_query_gid_table (IBVERBS_1.11, rdma-core 32): GID tables from ibv_query_gid\n"
                + "\ndevice vmw_pvrdma0\n  node_guid 0050:56ff:feb2:668c, transport IB, vendor_id 0x15ad,"
                + " vendor_part_id 2080, hw_ver 0x1, fw_ver 3.0.000, phys_port_cnt 1\n"), text);
        assertTrue(text.contains("  limits: max_qp 32768, max_qp_wr 1024, max_sge 16,"), text);
        assertTrue(text.contains("max_srq 0,"), text);
        assertTrue(text.contains("device_cap_flags 0x00201400\n"), text);
        assertTrue(text.contains("  port 1: state ACTIVE, link_layer ETHERNET, max_mtu 4096, active_mtu 1024,"), text);
        assertTrue(text.contains("    GID[  0] fe80:0000:0000:0000:0250:56ff:feb2:668c, IB/RoCE v1\n"), text);
        assertTrue(text.contains("    GID[  1] 0000:0000:0000:0000:0000:ffff:0a00:0005, IB/RoCE v1\n"), text);
        assertTrue(text.contains("  profile: PVRDMA HWv13 (ESXi 6.5)-class, detected\n    because vendor_part_id 2080"), text);
        assertTrue(text.contains("\n    because max_srq = 0 and RoCE v1 only: HWv13-class\n"), text);
        assertTrue(text.contains(String.format("    %-42s %-8s %s%n", "shared receive queues", "refused", "max_srq 0")
                + String.format("    %-42s %-8s %s%n", "", "", SRQ_REFUSAL)), text);
        assertTrue(text.contains("limited  at most 3 open at once per context\n"), text);
        assertTrue(text.contains("past it: ibv_create_qp failed"), text);
        assertTrue(text.contains(String.format("    %-42s %-8s %s%n", "RoCE v2", "absent", "no RoCE v2 GID on any port")), text);
    }

    @Test
    void jsonIsOneDocumentWithTheSameFields() throws Exception {
        String json = ReportFormat.json(new RdmaCore("44.0", Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
                List.of()), List.of(esxi65(), esxi65()));
        assertTrue(json.startsWith("{\"rdma_core\":{\"version\":\"44.0\",\"libibverbs\":"
                + "\"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\",\"fallbacks\":[]},"
                + "\"devices\":[{\"name\":\"vmw_pvrdma0\",\"node_guid\":\"0050:56ff:feb2:668c\","), json);
        assertTrue(json.contains("\"vendor_id\":\"0x15ad\",\"vendor_part_id\":2080,"), json);
        assertTrue(json.contains("\"limits\":{\"max_qp\":32768,"), json);
        assertTrue(json.contains("\"gids\":[{\"index\":0,\"gid\":\"fe80:0000:0000:0000:0250:56ff:feb2:668c\",\"type\":\"IB/RoCE v1\"}"), json);
        assertTrue(json.contains("\"profile\":{\"class\":\"pvrdma-hwv13\",\"description\":\"PVRDMA HWv13 (ESXi 6.5)\",\"emulated\":false,"), json);
        assertTrue(json.contains("{\"capability\":\"SHARED_RECEIVE_QUEUES\",\"label\":\"shared receive queues\",\"verb\":\"ibv_create_srq\","
                + "\"status\":\"refused\",\"allowed\":false,\"detail\":\"max_srq 0\",\"refusal\":\"" + SRQ_REFUSAL + "\"}"), json);
        assertTrue(json.contains("\"status\":\"absent\",\"allowed\":false,\"detail\":\"no RoCE v2 GID on any port\",\"refusal\":null}"), json);
        assertEquals(1, json.lines().count());
        assertTrue(json.endsWith("}]}"), json);
    }

    @Test
    void jsonEscapesStrings() {
        assertEquals("{\"a\\\"b\":[\"x\\\\y\\n\\u0001\",1,true,null]}",
                JsonText.write(Map.of("a\"b", java.util.Arrays.asList("x\\y\n\u0001", 1, true, null))));
    }
}
