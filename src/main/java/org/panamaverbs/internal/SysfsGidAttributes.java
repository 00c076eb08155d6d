package org.panamaverbs.internal;

import java.io.IOException;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A GID's type and network device as the kernel shows them in sysfs, for libibverbs older than rdma-core 32,
 * which has no {@code ibv_query_gid_table}. The rules are those of libibverbs' own sysfs fallback (rdma-core 32
 * and later use it when the kernel lacks the GID-table ioctl): {@code ports/<port>/gid_attrs/types/<index>} reads
 * {@code "RoCE v2"} or {@code "IB/RoCE v1"}, the latter being RoCE v1 on an Ethernet port and InfiniBand otherwise;
 * a port without {@code gid_attrs} (kernels before 4.5) has only IB/RoCE v1 GIDs; the kernel fails the read with
 * EINVAL on InfiniBand, which is IB/RoCE v1 too. {@code ports/<port>/gid_attrs/ndevs/<index>} names the network
 * device, whose interface index the entry carries (0 when there is none).
 */
public final class SysfsGidAttributes {
    /** {@code IBV_GID_TYPE_IB}, {@code IBV_GID_TYPE_ROCE_V1}, {@code IBV_GID_TYPE_ROCE_V2}; -1: a type this code does not know. */
    public static final int IB = 0, ROCE_V1 = 1, ROCE_V2 = 2, UNKNOWN = -1;

    private SysfsGidAttributes() {
    }

    /**
     * The {@code enum ibv_gid_type} value of a populated GID table entry.
     *
     * @param ibdevPath the device's sysfs directory ({@code ibv_device.ibdev_path}, e.g. {@code /sys/class/infiniband/rxe0})
     * @param ethernet  whether the port's link layer is Ethernet (IB/RoCE v1 is then RoCE v1)
     * @return {@link #IB}, {@link #ROCE_V1}, {@link #ROCE_V2}, or {@link #UNKNOWN} for a type name this code does not
     *         know or a {@code gid_attrs} directory without a readable entry
     */
    public static int type(Path ibdevPath, int port, int index, boolean ethernet) {
        Path attributes = ibdevPath.resolve("ports").resolve(Integer.toString(port)).resolve("gid_attrs");
        int v1 = ethernet ? ROCE_V1 : IB;
        String name;
        try {
            name = Files.readString(attributes.resolve("types").resolve(Integer.toString(index))).strip();
        } catch (NoSuchFileException e) {
            return Files.isDirectory(attributes) ? UNKNOWN : v1;
        } catch (IOException e) {
            return "Invalid argument".equals(e.getMessage()) ? v1 : UNKNOWN;
        }
        return switch (name) {
            case "IB/RoCE v1" -> v1;
            case "RoCE v2" -> ROCE_V2;
            default -> UNKNOWN;
        };
    }

    /**
     * The interface index of the network device a GID belongs to ({@code if_nametoindex} of its name), 0 when the
     * entry has none (InfiniBand) or it is not in this network namespace.
     *
     * @param ibdevPath the device's sysfs directory ({@code ibv_device.ibdev_path})
     */
    public static int netdevIndex(Path ibdevPath, int port, int index) {
        Path file = ibdevPath.resolve("ports").resolve(Integer.toString(port)).resolve("gid_attrs").resolve("ndevs")
                .resolve(Integer.toString(index));
        try {
            String name = Files.readString(file).strip();
            NetworkInterface netdev = name.isEmpty() ? null : NetworkInterface.getByName(name);
            return netdev == null ? 0 : netdev.getIndex();
        } catch (IOException e) {
            return 0;
        }
    }
}
