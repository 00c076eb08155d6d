package org.panamaverbs.junit;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.RdmaUnavailableException;

/**
 * Which device the tests of one run use, decided once: the one named by the {@code panamaverbs.testDevice}
 * configuration parameter or {@code RDMA_TEST_DEVICE}, else the first one {@code ibv_get_device_list} returns.
 * Either {@code device} is set, or {@code problem} says why there is none and {@code fatal} whether the tests
 * must fail rather than skip (a device was named or required).
 */
record DeviceChoice(String device, String problem, boolean fatal) {

    /** Where the kit's settings come from: JUnit configuration parameters (and system properties), then the environment. */
    record Settings(String requestedDevice, String requestedBy, boolean deviceRequired) {

        static Settings read(Function<String, Optional<String>> configuration, Function<String, String> environment) {
            String device = configuration.apply(RdmaExtension.DEVICE_PROPERTY).filter(s -> !s.isBlank()).orElse(null);
            String by = RdmaExtension.DEVICE_PROPERTY;
            if (device == null) {
                device = blankToNull(environment.apply(RdmaExtension.DEVICE_ENV));
                by = RdmaExtension.DEVICE_ENV;
            }
            String required = configuration.apply(RdmaExtension.REQUIRE_DEVICE_PROPERTY).filter(s -> !s.isBlank())
                    .orElse(blankToNull(environment.apply(RdmaExtension.REQUIRE_DEVICE_ENV)));
            return new Settings(device, device == null ? null : by, Boolean.parseBoolean(required));
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.strip();
        }
    }

    static DeviceChoice decide(Settings settings) {
        List<String> present;
        try {
            present = Rdma.devices().stream().map(RdmaDevice::name).toList();
        } catch (RdmaUnavailableException unavailable) {
            String why = unavailable.getMessage().strip();
            return absent(settings, "this machine has no RDMA device: " + (why.endsWith(".") ? why.substring(0, why.length() - 1) : why));
        }
        if (settings.requestedDevice() != null) {
            if (present.contains(settings.requestedDevice())) {
                return new DeviceChoice(settings.requestedDevice(), null, false);
            }
            return absent(settings, "this machine's RDMA devices are " + present);
        }
        if (present.isEmpty()) {
            return absent(settings, "the kernel supports RDMA but there is no RDMA device");
        }
        return new DeviceChoice(present.getFirst(), null, false);
    }

    private static DeviceChoice absent(Settings settings, String why) {
        if (settings.requestedDevice() != null) {
            return new DeviceChoice(null, settings.requestedBy() + " names the RDMA device " + settings.requestedDevice()
                    + ", but " + why, true);
        }
        String hint = "; set " + RdmaExtension.DEVICE_ENV + " to a device, or run the tests in panama-verbs' Soft-RoCE"
                + " guest (scripts/rdma-guest -- mvn -o test)";
        if (settings.deviceRequired()) {
            return new DeviceChoice(null, "no RDMA device, and one is required (" + RdmaExtension.REQUIRE_DEVICE_PROPERTY
                    + "=true): " + why + hint, true);
        }
        return new DeviceChoice(null, "no RDMA device: " + why + hint, false);
    }
}
