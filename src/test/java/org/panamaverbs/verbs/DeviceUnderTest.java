package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The device the device tests run on and its IP address, from the environment every module and script of the
 * project reads: {@value #DEVICE_ENV} (else the first device) and {@value #ADDRESS_ENV} (set by the Soft-RoCE
 * and PVRDMA guests).
 */
public final class DeviceUnderTest {
    /** Names the device to test on; unset: the first one {@code ibv_get_device_list} returns. */
    public static final String DEVICE_ENV = "RDMA_TEST_DEVICE";
    /** The IP address of the device's network interface, which rdma_cm resolves to the device. */
    public static final String ADDRESS_ENV = "RDMA_TEST_ADDRESS";
    /**
     * The source GID index to use where the device's default does not fit: the PVRDMA guest sets the index of its
     * IPv4 address's GID (the fec0:: GID of QEMU's user network is not on the backend).
     */
    public static final String GID_INDEX_ENV = "RDMA_TEST_GID_INDEX";
    /** {@code true} (system property, or the environment variable below): a test that lacks its device fails. */
    public static final String REQUIRE_DEVICE_PROPERTY = "panamaverbs.requireDevice";
    private static final String REQUIRE_DEVICE_ENV = "PANAMA_VERBS_REQUIRE_DEVICE";

    private DeviceUnderTest() {
    }

    /** Opens the device named by {@value #DEVICE_ENV}, else the first one. */
    public static Context open() {
        String name = System.getenv(DEVICE_ENV);
        return name == null || name.isBlank() ? Rdma.openFirst() : Rdma.open(name.strip());
    }

    /** The device's IP address as the environment gives it, or {@code null}. */
    public static String addressOrNull() {
        String value = System.getenv(ADDRESS_ENV);
        return value == null || value.isBlank() ? null : value.strip();
    }

    /**
     * The device's IP address, for a test that needs it: without one the test is skipped through an assumption
     * naming {@value #ADDRESS_ENV}, or fails with that reason when {@value #REQUIRE_DEVICE_PROPERTY} is set.
     *
     * @param user what needs the address, for the message (e.g. "rdma_cm tests")
     */
    public static InetAddress requireAddress(String user) throws UnknownHostException {
        String value = addressOrNull();
        if (value == null) {
            String why = user + " need the RDMA device's IP address in " + ADDRESS_ENV
                    + " (the project's Soft-RoCE guest sets it)";
            if (deviceRequired()) {
                fail(why + "; " + REQUIRE_DEVICE_PROPERTY + " is set, so a device test may not be skipped");
            }
            assumeTrue(false, why);
        }
        return InetAddress.getByName(value);
    }

    /** Whether this run must fail, not skip, a device test that lacks its device or address. */
    public static boolean deviceRequired() {
        return Boolean.getBoolean(REQUIRE_DEVICE_PROPERTY) || "true".equalsIgnoreCase(System.getenv(REQUIRE_DEVICE_ENV));
    }
}
