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
import org.junit.jupiter.api.extension.ExtendWith;
import org.panamaverbs.junit.RdmaExtension;

/**
 * What every device test of the transport starts from: the RDMA device and its IP address, chosen by the project's
 * JUnit kit ({@link RdmaExtension}: {@code RDMA_TEST_DEVICE} or the first device; {@code RDMA_TEST_ADDRESS} or the
 * device's IPv4 address; skipped without them, failed under {@code panamaverbs.requireDevice}), and a group of two
 * event loops in this JVM: {@link RdmaIoHandler}'s, or Netty's epoll loops for a class marked {@link OnEpollLoops}.
 * The tests scripts/test-all's device tier runs are tagged {@code rdma-device}, like every module's device tests; the
 * long ones (two-JVM transfers to 16 MiB, 10 000 connection cycles) {@code device-extended}, which CI does not run
 * ({@code mvn -Pdevice-tests surefire:test -Dtest.groups=device-extended}). So the kit's extension is registered
 * here, and each class carries its own tag ({@link org.panamaverbs.junit.RequiresRdmaDevice} would tag every one
 * {@code rdma-device}).
 */
@ExtendWith(RdmaExtension.class)
abstract class DeviceTest {
    /** The tag of the device tests CI runs. */
    static final String CI = "rdma-device";
    /** The tag of the long ones, run by hand. */
    static final String EXTENDED = "device-extended";
    static InetAddress address;
    static EventLoopGroup group;

    @BeforeAll
    static void startLoops(TestInfo test, InetAddress deviceAddress) throws Exception {
        address = deviceAddress;
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
