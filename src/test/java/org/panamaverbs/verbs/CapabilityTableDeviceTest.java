package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@code scripts/device-report} prints is what the device does: every verdict of
 * {@link Context#capabilities()} attempted on the test device, under the detected profile and under both
 * emulated PVRDMA profiles ({@link CapabilityTableCheck}).
 */
class CapabilityTableDeviceTest extends DeviceTest {

    @ParameterizedTest
    @EnumSource(HardwareClass.class)
    void everyVerdictAgreesWithTheDevice(HardwareClass profile) throws Exception {
        InetAddress address = DeviceUnderTest.requireAddress("the capability table's rdma_cm attempts");
        try (Context ctx = Rdma.open(context.name(), profile)) {
            List<String> lines = new CapabilityTableCheck(ctx, -1, address).run();
            lines.forEach(line -> System.out.println("capability-table " + profile.propertyValue() + ": " + line));
            assertEquals(Capability.values().length, lines.size());
        }
    }
}
