package com.ibm.disni;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.Rdma;

/**
 * The device disni's device tests run on and its IP address, from the variables every module of the project
 * reads: {@code RDMA_TEST_DEVICE} (else the first device) and {@code RDMA_TEST_ADDRESS} (set by the project's
 * Soft-RoCE guest). The address's older names are still read, for one release, with a note on stderr.
 */
public final class DeviceUnderTest {
    private static final String DEVICE_ENV = "RDMA_TEST_DEVICE";
    private static final String ADDRESS_ENV = "RDMA_TEST_ADDRESS";
    /** Read when RDMA_TEST_ADDRESS is not set; deprecated since 0.2.0. */
    private static final List<String> DEPRECATED_ADDRESS_ENVS = List.of("RDMA_TEST_ADDR", "PANAMA_VERBS_RDMA_ADDR");
    private static volatile boolean deprecationNoted;

    private DeviceUnderTest() {
    }

    /** Opens the device named by RDMA_TEST_DEVICE, else the first one. */
    public static Context open() {
        String name = System.getenv(DEVICE_ENV);
        return name == null || name.isBlank() ? Rdma.openFirst() : Rdma.open(name.strip());
    }

    /**
     * The IP address of the device's interface, which rdma_cm resolves to the device. Without one the test is
     * skipped through an assumption naming RDMA_TEST_ADDRESS, or fails with that reason when
     * {@code panamaverbs.requireDevice} is set (scripts/test-all sets it for every device run).
     */
    public static String host() {
        String value = System.getenv(ADDRESS_ENV);
        if (value != null && !value.isBlank()) {
            return value.strip();
        }
        for (String deprecated : DEPRECATED_ADDRESS_ENVS) {
            value = System.getenv(deprecated);
            if (value != null && !value.isBlank()) {
                if (!deprecationNoted) {
                    deprecationNoted = true;
                    System.err.println("disni tests: " + deprecated + " is deprecated and read for one more release;"
                            + " set " + ADDRESS_ENV + " instead");
                }
                return value.strip();
            }
        }
        String why = "disni's rdma_cm tests need the RDMA device's IP address in " + ADDRESS_ENV
                + " (the project's Soft-RoCE guest sets it)";
        if (Boolean.getBoolean("panamaverbs.requireDevice") || "true".equalsIgnoreCase(System.getenv("PANAMA_VERBS_REQUIRE_DEVICE"))) {
            fail(why + "; panamaverbs.requireDevice is set, so a device test may not be skipped");
        }
        assumeTrue(false, why);
        throw new AssertionError("unreachable");
    }
}
