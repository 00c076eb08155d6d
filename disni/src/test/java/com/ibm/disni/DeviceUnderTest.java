package com.ibm.disni;

import java.net.InetAddress;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * The device disni's device tests run on and its IP address, as the project's JUnit kit chose them
 * ({@link org.panamaverbs.junit.RequiresRdmaDevice}: {@code RDMA_TEST_DEVICE} or the first device,
 * {@code RDMA_TEST_ADDRESS} or the device's IPv4 address). Each test class hands over what it was injected in a
 * {@code @BeforeAll} method: {@link #use(RdmaDevice)} for {@link #open()}, {@link #use(InetAddress)} for {@link #host()}.
 */
public final class DeviceUnderTest {
    private static volatile RdmaDevice device;
    private static volatile InetAddress address;

    private DeviceUnderTest() {
    }

    /** The device the kit chose, for {@link #open()}. */
    public static void use(RdmaDevice chosen) {
        device = chosen;
    }

    /** The device's address the kit chose, for {@link #host()}. */
    public static void use(InetAddress chosen) {
        address = chosen;
    }

    /** Opens a context of its own on the chosen device (the caller closes it). */
    public static Context open() {
        RdmaDevice chosen = device;
        if (chosen == null) {
            throw new IllegalStateException("no device handed over: take an RdmaDevice in the class's @BeforeAll");
        }
        return Rdma.open(chosen.name());
    }

    /** The IP address of the device's interface, which rdma_cm resolves to the device. */
    public static String host() {
        InetAddress chosen = address;
        if (chosen == null) {
            throw new IllegalStateException("no address handed over: take an InetAddress in the class's @BeforeAll");
        }
        return chosen.getHostAddress();
    }
}
