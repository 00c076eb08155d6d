package org.panamaverbs.nio;

import java.util.HashMap;
import java.util.Map;

/**
 * Providers made with the system properties a test needs ({@code panamaverbs.nio.fallback},
 * {@code panamaverbs.nio.writeStallMillis}): a provider reads them when it is made; they are restored after. The
 * device tests' RDMA provider refuses the fallback, so that a test meant for RDMA cannot pass over TCP.
 */
final class ProviderProperties {
    private ProviderProperties() {
    }

    /** A provider made with {@code namesAndValues} (name, value, name, value...) set. */
    static synchronized RsocketSelectorProvider provider(String... namesAndValues) {
        Map<String, String> before = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            before.put(namesAndValues[i], System.getProperty(namesAndValues[i]));
            System.setProperty(namesAndValues[i], namesAndValues[i + 1]);
        }
        try {
            return new RsocketSelectorProvider();
        } finally {
            before.forEach((name, value) -> {
                if (value == null) {
                    System.clearProperty(name);
                } else {
                    System.setProperty(name, value);
                }
            });
        }
    }
}
