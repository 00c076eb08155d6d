package com.ibm.disni.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The util types of the DiSNI 2.1 drop-in, on this machine (no RDMA device needed). */
class UtilTest {

    @Test
    void getAddressIsElementZeroOfADirectBufferWithoutSunNioCh() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        long base = MemorySegment.ofBuffer(buffer).address();
        assertEquals(base, MemoryUtils.getAddress(buffer));
        buffer.position(100).limit(200);
        assertEquals(base, MemoryUtils.getAddress(buffer), "position and limit are ignored, as in DiSNI");
        ByteBuffer slice = buffer.clear().position(1000).slice();
        assertEquals(base + 1000, MemoryUtils.getAddress(slice), "a slice's address is base + offset");
        assertEquals(base, MemoryUtils.getAddress(buffer.asReadOnlyBuffer()));
        // the address is the memory: a native write through it shows in the buffer
        MemorySegment.ofAddress(MemoryUtils.getAddress(slice)).reinterpret(8).set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 42);
        assertEquals(42, buffer.get(1003));
    }

    @Test
    void getAddressRefusesHeapBuffers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MemoryUtils.getAddress(ByteBuffer.allocate(16)));
        assertTrue(e.getMessage().contains("not a direct buffer"), e.getMessage());
        assertThrows(NullPointerException.class, () -> MemoryUtils.getAddress(null));
    }

    @Test
    void loggerIsSlf4jNamedComIbmDisni() {
        Logger logger = DiSNILogger.getLogger();
        assertEquals("com.ibm.disni", logger.getName());
        assertSame(logger, DiSNILogger.getLogger());
        logger.info("DiSNILogger: {}", "an slf4j logger (the module brings no binding; the tests use slf4j-simple)");
    }

    @Test
    void memoryAllocationRoundsToPowersOfTwoAndReusesOneBufferPerSize() {
        MemoryAllocation pool = MemoryAllocation.getInstance();
        assertSame(pool, MemoryAllocation.getInstance());
        MemBuf small = pool.allocate(10);
        assertEquals(64, small.size());
        assertEquals(ByteOrder.nativeOrder(), small.getBuffer().order());
        assertTrue(small.getBuffer().isDirect());
        assertEquals(MemoryUtils.getAddress(small.getBuffer()), small.address());
        assertEquals(128, pool.allocate(65).size());
        assertEquals(4096, pool.allocate(4096).size());
        assertEquals(8192, pool.allocate(4097).size());
        MemBuf a = pool.allocate(3000);
        a.getBuffer().position(7);
        a.free();
        MemBuf b = pool.allocate(2049);
        assertSame(a, b, "the freed buffer of that size class is lent again");
        assertEquals(0, b.getBuffer().position(), "free() cleared it");
        MemBuf c = pool.allocate(2049);
        assertNotEquals(b.address(), c.address(), "only one idle buffer per size; a second request gets a new one");
        assertThrows(IllegalArgumentException.class, () -> pool.allocate(-1));
    }

    @Test
    void endianAndNetworkOrder() {
        assertEquals((short) 0x3412, EndianUtils.swap((short) 0x1234));
        assertEquals((char) 0x3412, EndianUtils.swap((char) 0x1234));
        assertEquals(0x78563412, EndianUtils.swap(0x12345678));
        assertEquals(0x0807060504030201L, EndianUtils.swap(0x0102030405060708L));
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        assertEquals(little ? 0x78563412 : 0x12345678, NetUtils.hostToNetworkByteOrder(0x12345678));
        assertEquals(0x12345678, NetUtils.networkToHostByteOrder(NetUtils.hostToNetworkByteOrder(0x12345678)));
        assertEquals(0x0102030405060708L,
                NetUtils.networkToHostByteOrder(NetUtils.hostToNetworkByteOrder(0x0102030405060708L)));
        assertEquals((short) 0x1234, NetUtils.networkToHostByteOrder(NetUtils.hostToNetworkByteOrder((short) 0x1234)));
        assertEquals((char) 0x1234, NetUtils.networkToHostByteOrder(NetUtils.hostToNetworkByteOrder((char) 0x1234)));
    }

    @Test
    void intAddresses() throws Exception {
        assertEquals(0x0A000001, NetUtils.getIntIPFromName("10.0.0.1"));
        assertEquals(0x7F000001, NetUtils.getIntIPFromInetAddress(InetAddress.getByName("127.0.0.1")));
        assertEquals(0xC0A80102, NetUtils.getIntIPFromInetAddress("192.168.1.2"));
        assertEquals(InetAddress.getByName("10.250.0.1"), NetUtils.getInetAddressFromIntIP(0x0AFA0001));
        assertThrows(java.net.UnknownHostException.class,
                () -> NetUtils.getIntIPFromInetAddress(InetAddress.getByName("::1")));
    }

    @Test
    void affinityOfTheCallingThread() throws Exception {
        AtomicLong before = new AtomicLong();
        AtomicLong after = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                long mask = NativeAffinity.getAffinity();
                before.set(mask);
                NativeAffinity.setAffinity(0); // no-op, as in DiSNI
                NativeAffinity.setAffinity(Long.lowestOneBit(mask)); // pin to the first allowed CPU
                after.set(NativeAffinity.getAffinity());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertNotEquals(0, before.get(), "a thread may run on some CPU");
        assertEquals(Long.lowestOneBit(before.get()), after.get());
    }

    @Test
    void stopWatchMeasuresMilliseconds() throws Exception {
        StopWatch watch = new StopWatch();
        watch.start();
        Thread.sleep(30);
        watch.stop();
        long ms = watch.getExecutionTime();
        assertTrue(ms >= 30 && ms < 10_000, ms + " ms");
        watch.reset();
        assertEquals(0, watch.getExecutionTime());
    }
}
