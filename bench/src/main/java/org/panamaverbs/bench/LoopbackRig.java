package org.panamaverbs.bench;

import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.QpConnectOptions;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;

/**
 * Two RC queue pairs on one device connected to each other (what perftest does with a server and a
 * client on the same device), each with its own completion queue and registered buffer. Closing the
 * rig closes the context and with it everything else.
 */
public final class LoopbackRig implements AutoCloseable {
    public final Context context;
    public final ProtectionDomain pd;
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final QueuePair a;
    public final QueuePair b;
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;

    /**
     * @param device     device name, or null/blank for the first device
     * @param port       port number
     * @param gidIndex   source GID index, or -1 for the library's default
     * @param pathMtu    path MTU, or null for the port's active MTU
     * @param bufferSize bytes registered on each side
     * @param sendDepth  send queue depth
     * @param recvDepth  receive queue depth
     * @param cqDepth    completion queue size
     */
    public LoopbackRig(String device, int port, int gidIndex, Mtu pathMtu, long bufferSize, int sendDepth, int recvDepth, int cqDepth) {
        context = device == null || device.isBlank() ? Rdma.openFirst() : Rdma.open(device);
        try {
            pd = context.allocateProtectionDomain();
            cqA = context.createCompletionQueue(cqDepth);
            cqB = context.createCompletionQueue(cqDepth);
            a = pd.createQueuePair(QpConfig.builder(cqA).capabilities(QpCapabilities.of(sendDepth, recvDepth))
                    .port(port).gidIndex(gidIndex).build());
            b = pd.createQueuePair(QpConfig.builder(cqB).capabilities(QpCapabilities.of(sendDepth, recvDepth))
                    .port(port).gidIndex(gidIndex).build());
            QueuePair.connectLoopback(a, b, QpConnectOptions.builder().pathMtu(pathMtu).build());
            mrA = pd.allocateAndRegister(bufferSize, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            mrB = pd.allocateAndRegister(bufferSize, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
