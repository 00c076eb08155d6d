package org.panamaverbs.bench.report;

import java.util.ArrayList;
import java.util.List;

import org.panamaverbs.verbs.CapabilityVerdict;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.DeviceProfile;
import org.panamaverbs.verbs.GidEntry;
import org.panamaverbs.verbs.PortAttributes;
import org.panamaverbs.verbs.RdmaDevice;

/**
 * Everything the device report shows of one device, read once from an open context so that the text and
 * JSON forms can be made (and tested) from recorded values.
 *
 * @param device       name, GUID and transport ({@code ibv_get_device_list})
 * @param attributes   {@code ibv_query_device}
 * @param ports        each port's attributes and GID table
 * @param profile      the detected or emulated profile, with its reasons
 * @param capabilities {@link Context#capabilities()}: what the library's gates answer
 */
record DeviceFacts(RdmaDevice device, DeviceAttributes attributes, List<PortFacts> ports, DeviceProfile profile,
        List<CapabilityVerdict> capabilities) {

    /** One port: {@code ibv_query_port} and {@code ibv_query_gid_table}. */
    record PortFacts(int port, PortAttributes attributes, List<GidEntry> gids) {
    }

    static DeviceFacts read(Context context) {
        List<PortFacts> ports = new ArrayList<>();
        for (int port = 1; port <= context.attributes().physicalPortCount(); port++) {
            ports.add(new PortFacts(port, context.queryPort(port), context.gidTable(port)));
        }
        return new DeviceFacts(context.device(), context.attributes(), List.copyOf(ports), context.profile(),
                context.capabilities());
    }
}
