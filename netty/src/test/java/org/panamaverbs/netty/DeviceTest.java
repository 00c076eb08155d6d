package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * What every device test of the transport starts from: the RDMA device's IP address (RDMA_TEST_ADDR, or
 * PANAMA_VERBS_RDMA_ADDR that the Soft-RoCE guest sets; without one the tests are skipped with that reason) and a
 * group of two RDMA event loops in this JVM.
 */
@Tag("device")
abstract class DeviceTest {
    static InetAddress address;
    static EventLoopGroup group;

    @BeforeAll
    static void startLoops() throws Exception {
        String value = System.getenv("RDMA_TEST_ADDR");
        if (value == null || value.isBlank()) {
            value = System.getenv("PANAMA_VERBS_RDMA_ADDR");
        }
        assumeTrue(value != null && !value.isBlank(), "RDMA transport tests need the RDMA device's IP address in"
                + " RDMA_TEST_ADDR (the Soft-RoCE guest sets PANAMA_VERBS_RDMA_ADDR)");
        address = InetAddress.getByName(value);
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            group = null;
        }
    }
}
