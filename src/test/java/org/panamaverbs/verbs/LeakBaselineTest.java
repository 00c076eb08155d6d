package org.panamaverbs.verbs;

import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Runs before every other device test class: records {@code rdma resource show}. */
@Tag("device")
@Order(Integer.MIN_VALUE)
class LeakBaselineTest {
    @Test
    void recordResourceCountsBeforeTheSuite() throws Exception {
        LeakCheck.baseline = LeakCheck.resourceCounts();
    }
}
