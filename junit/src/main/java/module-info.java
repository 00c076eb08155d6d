/**
 * The Panama Verbs JUnit 5 kit: {@link org.panamaverbs.junit.RequiresRdmaDevice} marks tests that need an RDMA
 * device; {@link org.panamaverbs.junit.RdmaExtension} picks the device ({@code RDMA_TEST_DEVICE} or the first
 * one), injects an open {@code Context}, protection domains, completion queues, the device and its IP address,
 * closes what it opened afterwards, and
 * without a device reports the tests skipped with the reason, or failed when a device is required
 * ({@code -Dpanamaverbs.requireDevice=true}).
 */
module org.panamaverbs.junit {
    requires transitive org.panamaverbs;
    requires transitive org.junit.jupiter.api;

    exports org.panamaverbs.junit;
}
