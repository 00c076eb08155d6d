package org.panamaverbs.junit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.function.Function;

import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.Rdma;

/**
 * The IP address rdma_cm resolves to the chosen device, decided once: the one given by the
 * {@code panamaverbs.testAddress} configuration parameter or {@code RDMA_TEST_ADDRESS}, else the first IPv4 address in
 * the device's GID table (a RoCE port lists its interface's addresses there; an InfiniBand port does not, so IPoIB
 * needs the setting). Either {@code address} is set, or {@code problem} says why there is none.
 */
record AddressChoice(InetAddress address, String problem) {

    static AddressChoice decide(DeviceChoice device, Function<String, Optional<String>> configuration,
            Function<String, String> environment) {
        String given = configuration.apply(RdmaExtension.ADDRESS_PROPERTY).filter(s -> !s.isBlank())
                .orElse(environment.apply(RdmaExtension.ADDRESS_ENV));
        if (given != null && !given.isBlank()) {
            try {
                return new AddressChoice(InetAddress.getByName(given.strip()), null);
            } catch (UnknownHostException e) {
                return new AddressChoice(null, "the test address " + given.strip() + " (" + RdmaExtension.ADDRESS_PROPERTY
                        + " or " + RdmaExtension.ADDRESS_ENV + ") does not resolve: " + e.getMessage());
            }
        }
        if (device.device() == null) {
            return new AddressChoice(null, device.problem());
        }
        try (Context context = Rdma.open(device.device())) {
            for (int port = 1; port <= context.attributes().physicalPortCount(); port++) {
                for (GidEntry entry : context.gidTable(port)) {
                    if (entry.gid().isIpv4Mapped()) {
                        return new AddressChoice(entry.gid().toInetAddress(), null);
                    }
                }
            }
        }
        return new AddressChoice(null, "the RDMA device " + device.device() + " lists no IPv4 address in its GID table"
                + " (an InfiniBand port: give its IPoIB address in " + RdmaExtension.ADDRESS_ENV + ")");
    }
}
