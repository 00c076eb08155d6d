package org.example.rdmasample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.panamaverbs.junit.Completion;
import org.panamaverbs.junit.Completions;
import org.panamaverbs.junit.RequiresRdmaDevice;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.RecvChain;
import org.panamaverbs.verbs.SendFlags;
import org.panamaverbs.verbs.SendChain;
import org.panamaverbs.verbs.WcOpcode;
import org.panamaverbs.verbs.WrOpcode;

/**
 * Two connected RC queue pairs on the test device: a SEND lands in the posted receive buffer, an RDMA WRITE in
 * the peer's registered memory. The kit injects the protection domain and the completion queues and closes them
 * (with the queue pairs and memory regions made on them) after each test.
 */
// snippet:test (docs/guide/junit.md shows this part)
@RequiresRdmaDevice
class LoopbackTest {
    /** Generous: the Soft-RoCE guest runs under emulation. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void sendArrivesInThePostedReceiveBuffer(ProtectionDomain pd, CompletionQueue senderCq, CompletionQueue receiverCq) {
        byte[] message = "hello over RDMA SEND".getBytes(StandardCharsets.UTF_8);
        MemoryRegion outgoing = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
        MemoryRegion incoming = pd.allocateAndRegister(4096, Access.LOCAL_WRITE);
        outgoing.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(message));
        QpCapabilities capabilities = QpCapabilities.of(4, 4);
        QueuePair sender = pd.createQueuePair(QpConfig.builder(senderCq).capabilities(capabilities).build());
        QueuePair receiver = pd.createQueuePair(QpConfig.builder(receiverCq).capabilities(capabilities).build());
        QueuePair.connectLoopback(sender, receiver);

        try (RecvChain recvs = RecvChain.allocate(1, 1); SendChain sends = SendChain.allocate(1, 1)) {
            recvs.get(0).wrId(2).sge(incoming, 0, 4096);
            receiver.postRecvOrThrow(recvs, 1);
            sends.get(0).wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).sge(outgoing, 0, message.length);
            sender.postSendOrThrow(sends, 1);
        }

        Completion sent = Completions.await(senderCq, 1, TIMEOUT).getFirst();
        assertTrue(sent.isSuccess(), sent.toString());
        assertEquals(WcOpcode.SEND, sent.opcode());
        Completion received = Completions.await(receiverCq, 1, TIMEOUT).getFirst();
        assertTrue(received.isSuccess(), received.toString());
        assertEquals(WcOpcode.RECV, received.opcode());
        assertEquals(2, received.wrId());
        assertEquals(message.length, received.byteLength());
        assertArrayEquals(message, incoming.segment().asSlice(0, message.length).toArray(ValueLayout.JAVA_BYTE));
    }
    // end-snippet

    @Test
    void rdmaWritePlacesTheBytesInThePeersMemory(ProtectionDomain pd, CompletionQueue cq) {
        int length = 64 * 1024;
        MemoryRegion local = pd.allocateAndRegister(length, Access.LOCAL_WRITE);
        MemoryRegion remote = pd.allocateAndRegister(length, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        for (int i = 0; i < length; i++) {
            local.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i ^ (i >>> 8)));
        }
        QueuePair writer = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(4, 4)).build());
        QueuePair target = pd.createQueuePair(QpConfig.builder(cq).capabilities(QpCapabilities.of(4, 4)).build());
        QueuePair.connectLoopback(writer, target);

        try (SendChain sends = SendChain.allocate(1, 1)) {
            sends.get(0).wrId(7).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).sge(local, 0, length)
                    .remote(remote.address(), remote.rkey());
            writer.postSendOrThrow(sends, 1);
        }

        Completion written = Completions.await(cq, 1, TIMEOUT).getFirst();
        assertTrue(written.isSuccess(), written.toString());
        assertEquals(WcOpcode.RDMA_WRITE, written.opcode());
        assertArrayEquals(local.segment().toArray(ValueLayout.JAVA_BYTE), remote.segment().toArray(ValueLayout.JAVA_BYTE));
    }
}
