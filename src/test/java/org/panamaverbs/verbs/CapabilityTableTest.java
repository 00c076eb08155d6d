package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@code scripts/device-report} prints is what the device does: every verdict of
 * {@link Context#capabilities()} attempted on the test device, under the detected profile and under both
 * emulated PVRDMA profiles ({@link CapabilityTableCheck}).
 */
class CapabilityTableTest extends DeviceTest {

    @ParameterizedTest
    @EnumSource(HardwareClass.class)
    void everyVerdictAgreesWithTheDevice(HardwareClass profile) throws Exception {
        String address = System.getenv("RDMA_TEST_ADDR");
        if (address == null || address.isBlank()) {
            address = System.getenv("PANAMA_VERBS_RDMA_ADDR");
        }
        assumeTrue(address != null && !address.isBlank(), "the rdma_cm attempts need the device's IP address in"
                + " RDMA_TEST_ADDR (the Soft-RoCE guest sets PANAMA_VERBS_RDMA_ADDR)");
        try (Context ctx = Rdma.open(context.name(), profile)) {
            List<String> lines = new CapabilityTableCheck(ctx, -1, InetAddress.getByName(address)).run();
            lines.forEach(line -> System.out.println("capability-table " + profile.propertyValue() + ": " + line));
            assertEquals(Capability.values().length, lines.size());
        }
    }
}
