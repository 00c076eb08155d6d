package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The RDMA device's IP address for device tests: RDMA_TEST_ADDR, or PANAMA_VERBS_RDMA_ADDR from the guest. */
final class DeviceAddress {
    private DeviceAddress() {
    }

    /** The address, or a skip (an assumption naming why) when none is set. */
    static InetAddress require() throws UnknownHostException {
        String value = System.getenv("RDMA_TEST_ADDR");
        if (value == null || value.isBlank()) {
            value = System.getenv("PANAMA_VERBS_RDMA_ADDR");
        }
        assumeTrue(value != null && !value.isBlank(), "RDMA transport tests need the RDMA device's IP address in"
                + " RDMA_TEST_ADDR (the Soft-RoCE guest sets PANAMA_VERBS_RDMA_ADDR)");
        return InetAddress.getByName(value);
    }
}
