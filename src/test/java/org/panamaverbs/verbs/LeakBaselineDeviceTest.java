package org.panamaverbs.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs before every other device test class: records {@code rdma resource show}. librdmacm opens a device
 * context the first time an id binds to the device and keeps it for the life of the process (one
 * {@code ctx} in the counts that no close can release), so the baseline is taken after rdma_cm has been
 * used once; then the count is the same before and after the suite, and any further {@code ctx} is a leak.
 */
@Tag("rdma-device")
@Order(Integer.MIN_VALUE)
class LeakBaselineDeviceTest {
    @Test
    void recordResourceCountsBeforeTheSuite() throws Exception {
        String address = DeviceUnderTest.addressOrNull();
        if (address != null && !address.isBlank()) {
            try (CmEventChannel channel = CmEventChannel.create(); CmId id = CmId.create(channel, PortSpace.TCP)) {
                id.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
                id.context(); // librdmacm's context for the device is open from here on
            }
        }
        LeakCheck.baseline = LeakCheck.resourceCounts();
    }
}
