package org.panamaverbs.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.Outcomes.Outcome;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaUnavailableException;

/**
 * The kit on a machine without an RDMA device (the build host): device tests are reported skipped with the
 * reason, fail with it when a device is required, and a named device that is not there fails them. The test
 * classes run through JUnit's EngineTestKit; the environment variables are tried in a child JVM. The cases
 * that need the device to be absent are skipped (assumption) where there is one.
 */
class RdmaExtensionTest {

    @BeforeEach
    void resetFixtures() {
        KitFixtures.DeviceClass.bodiesRun.set(0);
    }

    private static boolean noDeviceHere() {
        try {
            return Rdma.devices().isEmpty();
        } catch (RdmaUnavailableException unavailable) {
            return true;
        }
    }

    /** No device here, and none asked for through the environment this JVM inherited. */
    private static void assumeNoDevice() {
        assumeTrue(noDeviceHere(), "this machine has an RDMA device; the no-device cases need one without");
        assumeTrue(System.getenv(RdmaExtension.DEVICE_ENV) == null && System.getenv(RdmaExtension.REQUIRE_DEVICE_ENV) == null,
                "RDMA_TEST_DEVICE or PANAMA_VERBS_REQUIRE_DEVICE is set for this run");
    }

    /** What a build without any setting gives, whatever system properties this run has. */
    private static final Map<String, String> NOT_REQUIRED = Map.of(RdmaExtension.REQUIRE_DEVICE_PROPERTY, "false");

    @Test
    void withoutADeviceTheTestClassIsSkippedWithTheReason() {
        assumeNoDevice();
        List<Outcome> outcomes = Outcomes.run(KitFixtures.DeviceClass.class, NOT_REQUIRED);
        assertEquals(1, outcomes.size(), outcomes.toString());
        Outcome skipped = outcomes.getFirst();
        assertEquals("SKIPPED", skipped.result(), skipped.toString());
        assertTrue(skipped.container());
        assertTrue(skipped.detail().startsWith("no RDMA device: this machine has no RDMA device: "), skipped.detail());
        assertTrue(skipped.detail().endsWith("; set RDMA_TEST_DEVICE to a device, or run the tests in panama-verbs'"
                + " Soft-RoCE guest (scripts/rdma-guest -- mvn -o test)"), skipped.detail());
        assertEquals(0, KitFixtures.DeviceClass.bodiesRun.get());
    }

    @Test
    void withoutADeviceADeviceMethodIsSkippedAndThePlainOneRuns() {
        assumeNoDevice();
        List<Outcome> outcomes = Outcomes.run(KitFixtures.MixedClass.class, NOT_REQUIRED);
        Outcome plain = Outcomes.find(outcomes, "plainTest()");
        assertEquals("SUCCESSFUL", plain.result(), plain.toString());
        Outcome device = Outcomes.find(outcomes, "deviceTest(ProtectionDomain)");
        assertEquals("SKIPPED", device.result(), device.toString());
        assertTrue(device.detail().startsWith("no RDMA device: "), device.detail());
        assertEquals("SUCCESSFUL", Outcomes.find(outcomes, "KitFixtures$MixedClass").result());
    }

    @Test
    void requiringADeviceTurnsTheSkipIntoAFailureWithTheReason() {
        assumeNoDevice();
        List<Outcome> outcomes = Outcomes.run(KitFixtures.DeviceClass.class,
                Map.of(RdmaExtension.REQUIRE_DEVICE_PROPERTY, "true"));
        for (String test : List.of("withContext(Context)", "withoutParameters()")) {
            Outcome failed = Outcomes.find(outcomes, test);
            assertEquals("FAILED", failed.result(), failed.toString());
            assertTrue(failed.detail().startsWith("RdmaUnavailableException: no RDMA device, and one is required"
                    + " (panamaverbs.requireDevice=true): this machine has no RDMA device: "), failed.detail());
            assertTrue(failed.detail().contains("set RDMA_TEST_DEVICE to a device"), failed.detail());
        }
        assertEquals(0, KitFixtures.DeviceClass.bodiesRun.get(), "no test body runs without a device");
    }

    @Test
    void aNamedDeviceThatIsNotThereFailsTheTestsNamingTheDevicesPresent() {
        List<Outcome> outcomes = Outcomes.run(KitFixtures.DeviceClass.class,
                Map.of(RdmaExtension.DEVICE_PROPERTY, "nosuch0"));
        String expected = "RdmaUnavailableException: panamaverbs.testDevice names the RDMA device nosuch0, but "
                + (noDeviceHere() ? "this machine has no RDMA device: " : "this machine's RDMA devices are [");
        for (String test : List.of("withContext(Context)", "withoutParameters()")) {
            Outcome failed = Outcomes.find(outcomes, test);
            assertEquals("FAILED", failed.result(), failed.toString());
            assertTrue(failed.detail().startsWith(expected), failed.detail());
        }
        assertEquals(0, KitFixtures.DeviceClass.bodiesRun.get());
    }

    @Test
    void rdmaTestDeviceInTheEnvironmentNamingAMissingDeviceFails() throws Exception {
        List<String> lines = runInChildJvm(Map.of(RdmaExtension.DEVICE_ENV, "nosuch0"));
        List<String> failed = lines.stream().filter(l -> l.startsWith("test ")).toList();
        assertEquals(2, failed.size(), lines.toString());
        for (String line : failed) {
            assertTrue(line.contains(" FAILED: RdmaUnavailableException: RDMA_TEST_DEVICE names the RDMA device nosuch0, but "),
                    line);
        }
    }

    @Test
    void requireDeviceInTheEnvironmentFailsWithoutADevice() throws Exception {
        assumeNoDevice();
        List<String> lines = runInChildJvm(Map.of(RdmaExtension.REQUIRE_DEVICE_ENV, "true"));
        List<String> failed = lines.stream().filter(l -> l.startsWith("test ")).toList();
        assertEquals(2, failed.size(), lines.toString());
        for (String line : failed) {
            assertTrue(line.contains(" FAILED: RdmaUnavailableException: no RDMA device, and one is required"), line);
        }
    }

    @Test
    void settingsPreferTheConfigurationParameterAndIgnoreBlanks() {
        Map<String, String> environment = Map.of(RdmaExtension.DEVICE_ENV, "mlx5_0", RdmaExtension.REQUIRE_DEVICE_ENV, "true");
        DeviceChoice.Settings fromEnvironment = DeviceChoice.Settings.read(key -> Optional.empty(), environment::get);
        assertEquals(new DeviceChoice.Settings("mlx5_0", "RDMA_TEST_DEVICE", true), fromEnvironment);

        Map<String, String> configuration = Map.of(RdmaExtension.DEVICE_PROPERTY, "rxe0",
                RdmaExtension.REQUIRE_DEVICE_PROPERTY, "false");
        DeviceChoice.Settings fromConfiguration = DeviceChoice.Settings.read(
                key -> Optional.ofNullable(configuration.get(key)), environment::get);
        assertEquals(new DeviceChoice.Settings("rxe0", "panamaverbs.testDevice", false), fromConfiguration);

        DeviceChoice.Settings blanks = DeviceChoice.Settings.read(key -> Optional.of(" "),
                Map.of(RdmaExtension.DEVICE_ENV, "  ")::get);
        assertEquals(new DeviceChoice.Settings(null, null, false), blanks);
    }

    @Test
    void aGivenTestAddressWinsAndOneThatDoesNotResolveSaysWhichSetting() throws Exception {
        DeviceChoice none = new DeviceChoice(null, "no RDMA device: none here", false);
        AddressChoice fromEnvironment = AddressChoice.decide(none, key -> Optional.empty(),
                Map.of(RdmaExtension.ADDRESS_ENV, " 10.250.0.1 ")::get);
        assertEquals(new AddressChoice(java.net.InetAddress.getByName("10.250.0.1"), null), fromEnvironment);

        AddressChoice fromConfiguration = AddressChoice.decide(none,
                key -> Optional.ofNullable(Map.of(RdmaExtension.ADDRESS_PROPERTY, "192.0.2.7").get(key)),
                Map.of(RdmaExtension.ADDRESS_ENV, "10.250.0.1")::get);
        assertEquals(java.net.InetAddress.getByName("192.0.2.7"), fromConfiguration.address());

        AddressChoice unresolvable = AddressChoice.decide(none, key -> Optional.empty(),
                Map.of(RdmaExtension.ADDRESS_ENV, "no-such-host.invalid")::get);
        assertEquals(null, unresolvable.address());
        assertTrue(unresolvable.problem().contains("no-such-host.invalid") && unresolvable.problem().contains(
                RdmaExtension.ADDRESS_ENV), unresolvable.problem());

        AddressChoice withoutDevice = AddressChoice.decide(none, key -> Optional.empty(), key -> null);
        assertEquals(new AddressChoice(null, none.problem()), withoutDevice);
    }


    /** Runs {@link KitFixtures.DeviceClass} in a child JVM with {@code environment} set, the kit's other variables unset. */
    private static List<String> runInChildJvm(Map<String, String> environment) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                Outcomes.class.getName(), KitFixtures.DeviceClass.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove(RdmaExtension.DEVICE_ENV);
        builder.environment().remove(RdmaExtension.REQUIRE_DEVICE_ENV);
        builder.environment().putAll(environment);
        Process child = builder.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child JVM did not end: " + output);
        assertEquals(0, child.exitValue(), output);
        return output.lines().toList();
    }
}
