package org.panamaverbs.verbs;

import java.util.HexFormat;

/**
 * One entry of {@code ibv_get_device_list}: what can be known about a device without opening it.
 *
 * @param name      {@code ibv_get_device_name}, e.g. {@code "rxe0"}, {@code "mlx5_0"}; udev may rename
 *                  devices, so never infer the device kind from it
 * @param guid      {@code ibv_get_device_guid}, in host order (the C function returns it big-endian)
 * @param transport the device's {@code transport_type}
 */
public record RdmaDevice(String name, long guid, Transport transport) {
    /**
     * The GUID as {@code ibv_devices} prints it: 16 hex digits.
     *
     * @return {@link #guid()} as 16 lower-case hex digits with leading zeros, without separators or prefix
     */
    public String guidHex() {
        return HexFormat.of().toHexDigits(guid);
    }
}
