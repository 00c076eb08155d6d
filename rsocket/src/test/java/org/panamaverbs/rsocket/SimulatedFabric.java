package org.panamaverbs.rsocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Two {@link RsocketFlow}s joined by a simulated reliable connection: RDMA WRITE WITH IMM copies bytes into the
 * peer's registered memory (checking the rkey and bounds as an adapter would), consumes one of its posted
 * receives (waiting, as RNR retry does, while none is posted) and completes in order; a signalled send
 * completes after the write landed; an RDMA WRITE without immediate lands in a region the peer mapped
 * ({@link End#register}) or fails the test. Nothing moves until {@link #deliver()} is called, so tests see the
 * flows with requests in flight.
 */
final class SimulatedFabric implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    final End a;
    final End b;

    SimulatedFabric(int queue, int sendBuffer, int receiveBuffer) {
        this(queue, sendBuffer, receiveBuffer, 0);
    }

    /** Both ends with an iomap table of {@code iomapEntries}. */
    SimulatedFabric(int queue, int sendBuffer, int receiveBuffer, int iomapEntries) {
        a = new End("a", queue, sendBuffer, receiveBuffer, iomapEntries, 1);
        b = new End("b", queue, sendBuffer, receiveBuffer, iomapEntries, 2);
        a.peer = b;
        b.peer = a;
    }

    /** Connects: each side takes the other's connection data (encoded and decoded, as on the wire). */
    void connect() {
        byte[] fromA = a.flow.localData().encode();
        byte[] fromB = b.flow.localData().encode();
        a.postReceives(a.flow.receiveQueueSize());
        b.postReceives(b.flow.receiveQueueSize());
        a.flow.start(RsocketWire.ConnectionData.decode(fromB));
        b.flow.start(RsocketWire.ConnectionData.decode(fromA));
        a.flow.afterCompletions();
        b.flow.afterCompletions();
    }

    /** Moves everything in flight, both ways, until nothing moves; returns the writes delivered. */
    int deliver() {
        int total = 0;
        while (true) {
            int moved = a.deliverOne() + b.deliverOne();
            if (moved == 0) {
                return total;
            }
            total += moved;
            a.flow.afterCompletions();
            b.flow.afterCompletions();
        }
    }

    @Override
    public void close() {
        arena.close();
    }

    /** A write posted and not delivered yet. */
    private record Write(long wrId, boolean signaled, byte[] bytes, long remoteAddress, int rkey, Integer immediate) {
    }

    final class End implements WorkPoster {
        final String name;
        final MemorySegment send;
        final MemorySegment receive;
        final int receiveKey;
        final RsocketFlow flow;
        End peer;
        private final List<Write> appended = new ArrayList<>();
        private final ArrayDeque<Write> wire = new ArrayDeque<>();
        int postedReceives;
        int signaledCompletions;
        int writesPosted;
        private final java.util.Map<Integer, MemorySegment> regions = new java.util.HashMap<>();

        End(String name, int queue, int sendBuffer, int receiveBuffer, int iomapEntries, int key) {
            this.name = name;
            this.send = arena.allocate(RsocketFlow.sendMemoryBytes(sendBuffer), 64);
            this.receive = arena.allocate(RsocketFlow.receiveMemoryBytes(receiveBuffer, iomapEntries), 64);
            this.receiveKey = 0x1000 + key;
            this.flow = new RsocketFlow(queue, queue, sendBuffer, receiveBuffer, iomapEntries, send, receive,
                    receive.address(), receiveKey, this, key);
        }

        /** Registers {@code size} bytes the peer may write into with {@code rkey}; returns the memory. */
        MemorySegment register(int size, int rkey) {
            MemorySegment region = arena.allocate(size, 64);
            regions.put(rkey, region);
            return region;
        }

        /** Deregisters: the peer's writes with that rkey fail from now on. */
        void deregister(int rkey) {
            regions.remove(rkey);
        }

        @Override
        public void write(long wrId, int offset0, int length0, int offset1, int length1, long remoteAddress, int rkey) {
            byte[] bytes = new byte[length0 + length1];
            MemorySegment.copy(send, offset0, MemorySegment.ofArray(bytes), 0, length0);
            MemorySegment.copy(send, offset1, MemorySegment.ofArray(bytes), length0, length1);
            appended.add(new Write(wrId, false, bytes, remoteAddress, rkey, null));
        }

        @Override
        public void writeWithImmediate(long wrId, boolean signaled, int offset0, int length0, int offset1, int length1,
                long remoteAddress, int rkey, int immediate) {
            byte[] bytes = new byte[length0 + length1];
            MemorySegment.copy(send, offset0, MemorySegment.ofArray(bytes), 0, length0);
            MemorySegment.copy(send, offset1, MemorySegment.ofArray(bytes), length0, length1);
            appended.add(new Write(wrId, signaled, bytes, remoteAddress, rkey, immediate));
        }

        @Override
        public void writeZeroBytes(long wrId) {
            appended.add(new Write(wrId, true, new byte[0], 0, 0, null));
        }

        @Override
        public int flush() {
            if (appended.isEmpty()) {
                return 0;
            }
            Write last = appended.removeLast();
            appended.add(new Write(last.wrId, true, last.bytes, last.remoteAddress, last.rkey, last.immediate));
            wire.addAll(appended);
            writesPosted += appended.size();
            appended.clear();
            return 0;
        }

        @Override
        public int postReceives(int count) {
            postedReceives += count;
            return 0;
        }

        void postReceives(long count) {
            postedReceives += (int) count;
        }

        /** Delivers the oldest write of this end to its peer; 0 if none can move (none, or RNR). */
        int deliverOne() {
            Write write = wire.peek();
            if (write == null) {
                return 0;
            }
            if (write.immediate != null && peer.postedReceives == 0) {
                return 0; // receiver not ready: RNR NAK, the adapter retries later
            }
            wire.poll();
            if (write.bytes.length > 0) {
                MemorySegment target = write.rkey == peer.receiveKey ? peer.receive : peer.regions.get(write.rkey);
                long offset = target == null ? -1 : write.remoteAddress - target.address();
                if (target == null || offset < 0 || offset + write.bytes.length > target.byteSize()) {
                    throw new AssertionError(name + " wrote " + write.bytes.length + " bytes at 0x"
                            + Long.toHexString(write.remoteAddress) + " rkey " + write.rkey + " outside the peer's region");
                }
                MemorySegment.copy(MemorySegment.ofArray(write.bytes), 0, target, offset, write.bytes.length);
            }
            if (write.immediate != null) {
                peer.postedReceives--;
                peer.flow.onReceive(write.immediate, write.bytes.length, null);
            }
            if (write.signaled) {
                signaledCompletions++;
                flow.onSendCompleted(write.wrId, null);
            }
            return 1;
        }

        boolean idle() {
            return wire.isEmpty() && appended.isEmpty();
        }
    }
}
