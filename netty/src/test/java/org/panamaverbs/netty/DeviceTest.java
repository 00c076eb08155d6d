package org.panamaverbs.netty;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/**
 * What every device test of the transport starts from: the RDMA device's IP address, from the variable every module
 * of the project reads, {@code RDMA_TEST_ADDRESS} (the project's Soft-RoCE guest sets it), and a group of two
 * event loops in this JVM: {@link RdmaIoHandler}'s, or Netty's epoll loops for a class marked {@link OnEpollLoops}.
 * The tests scripts/test-all's device tier runs are tagged {@code rdma-device}, like every module's device tests; the
 * long ones (two-JVM transfers to 16 MiB, 10 000 connection cycles) {@code device-extended}, which CI does not run
 * ({@code mvn -Pdevice-tests surefire:test -Dtest.groups=device-extended}).
 */
abstract class DeviceTest {
    private static final String ADDRESS_ENV = "RDMA_TEST_ADDRESS";
    /** The tag of the device tests CI runs. */
    static final String CI = "rdma-device";
    /** The tag of the long ones, run by hand. */
    static final String EXTENDED = "device-extended";
    static InetAddress address;
    static EventLoopGroup group;

    @BeforeAll
    static void startLoops(TestInfo test) throws Exception {
        String value = System.getenv(ADDRESS_ENV);
        require(value != null && !value.isBlank(), "the transport's device tests need the RDMA device's IP address in "
                + ADDRESS_ENV + " (the project's Soft-RoCE guest sets it)");
        address = InetAddress.getByName(value.strip());
        boolean epoll = test.getTestClass().map(c -> c.isAnnotationPresent(OnEpollLoops.class)).orElse(false);
        if (epoll) {
            requireEpoll();
        }
        group = new MultiThreadIoEventLoopGroup(2, epoll ? EpollIoHandler.newFactory() : RdmaIoHandler.newFactory());
    }

    /** Netty's native epoll must load here (netty-transport-native-epoll for this platform, a Linux kernel). */
    static void requireEpoll() {
        requireTool(Epoll.isAvailable(), "Netty's native epoll is unavailable: " + Epoll.unavailabilityCause());
    }

    @AfterAll
    static void stopLoops() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            group = null;
        }
    }

    /**
     * Skips the test naming the missing device (address), or fails it under {@code panamaverbs.requireDevice}, which
     * scripts/test-all sets for every device run.
     */
    static void require(boolean present, String missing) {
        require(present, missing, "panamaverbs.requireDevice");
    }

    /**
     * Skips the test naming the missing tool ({@code rstream}, {@code curl}, {@code librspreload.so}), or fails it
     * under {@code panamaverbs.requireDevice} or {@code panamaverbs.requireTools}.
     */
    static void requireTool(boolean present, String missing) {
        require(present, missing, "panamaverbs.requireDevice", "panamaverbs.requireTools");
    }

    private static void require(boolean present, String missing, String... strictProperties) {
        if (present) {
            return;
        }
        for (String property : strictProperties) {
            String env = "PANAMA_VERBS_" + property.substring("panamaverbs.".length())
                    .replaceAll("([A-Z])", "_$1").toUpperCase(java.util.Locale.ROOT);
            if (Boolean.getBoolean(property) || "true".equalsIgnoreCase(System.getenv(env))) {
                fail(missing + " (" + property + " is set, so the test may not be skipped)");
            }
        }
        Assumptions.abort(missing);
    }
}
