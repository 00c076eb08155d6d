package org.panamaverbs.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class or test method that needs an RDMA device: tags it {@value RdmaExtension#TAG} (so a build
 * can select or leave out device tests by tag) and registers {@link RdmaExtension}, which picks the device,
 * injects {@link org.panamaverbs.verbs.Context}, {@link org.panamaverbs.verbs.ProtectionDomain},
 * {@link org.panamaverbs.verbs.CompletionQueue}, {@link org.panamaverbs.verbs.RdmaDevice} and
 * {@link java.net.InetAddress} (the device's address, for rdma_cm) parameters, and decides what happens without a
 * device (or, for a test that takes an address, without an address):
 * <ul>
 *   <li>no device: the test is reported <em>skipped</em>, with the reason (what is missing, and that
 *       {@code RDMA_TEST_DEVICE} or panama-verbs' {@code scripts/rdma-guest} gives one);</li>
 *   <li>no device and {@code -Dpanamaverbs.requireDevice=true} (or the environment variable
 *       {@code PANAMA_VERBS_REQUIRE_DEVICE=true}): the test <em>fails</em> with that reason;</li>
 *   <li>{@code RDMA_TEST_DEVICE} names a device this machine does not have: the test fails, naming the
 *       devices that are there.</li>
 * </ul>
 *
 * <pre>{@code
 * @RequiresRdmaDevice
 * class MyDeviceTest {
 *     @Test
 *     void registersMemory(ProtectionDomain pd) { ... }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(RdmaExtension.TAG)
@ExtendWith(RdmaExtension.class)
public @interface RequiresRdmaDevice {
}
