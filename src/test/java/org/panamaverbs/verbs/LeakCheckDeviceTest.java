package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Runs after every other device test class: nothing the suite created is left on the device. */
@Tag("rdma-device")
@Order(Integer.MAX_VALUE)
class LeakCheckDeviceTest {
    @Test
    void resourceCountsAreBackWhereTheSuiteFoundThem() throws Exception {
        assumeTrue(LeakCheck.baseline != null, "the baseline did not run (run the whole device suite)");
        assertEquals(LeakCheck.baseline, LeakCheck.resourceCounts(), "rdma resource show before and after the device suite");
    }
}
