package org.panamaverbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The private data a {@link Connection} sends: round trips, the transport's zero padding, limits, foreign peers. */
class FramedPrivateDataTest {
    private static final RemoteRegion REGION = new RemoteRegion(0x7f00_1234_5000L, 4096, 0x37a);

    @Test
    void roundTripsWithAndWithoutRegionThroughTheTransportsPadding() {
        byte[] app = "hello".getBytes(StandardCharsets.US_ASCII);
        for (RemoteRegion region : new RemoteRegion[] {REGION, null}) {
            byte[] sent = new FramedPrivateData(region, app).encode(ConnParam.MAX_CONNECT_PRIVATE_DATA);
            assertEquals(FramedPrivateData.HEADER + (region == null ? 0 : RemoteRegion.BYTES) + app.length, sent.length);
            // a receiver gets the whole CM field: the sender's bytes, then zeros
            byte[] received = Arrays.copyOf(sent, ConnParam.MAX_ACCEPT_PRIVATE_DATA);
            FramedPrivateData decoded = FramedPrivateData.decode(received);
            assertEquals(region, decoded.region());
            assertArrayEquals(app, decoded.application());
        }
    }

    @Test
    void theLimitCountsHeaderAndRegion() {
        int limit = ConnParam.MAX_CONNECT_PRIVATE_DATA;
        int withRegion = limit - FramedPrivateData.HEADER - RemoteRegion.BYTES;
        assertEquals(31, withRegion);
        new FramedPrivateData(REGION, new byte[withRegion]).encode(limit);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new FramedPrivateData(REGION, new byte[withRegion + 1]).encode(limit));
        assertTrue(e.getMessage().contains("this call carries 56 bytes, of which 25 describe the connection and the offered region"),
                e.getMessage());
        new FramedPrivateData(null, new byte[limit - FramedPrivateData.HEADER]).encode(limit);
    }

    @Test
    void dataFromAPeerThatIsNotPanamaVerbsIsKeptWhole() {
        byte[] foreign = "rping-style bytes".getBytes(StandardCharsets.US_ASCII);
        FramedPrivateData decoded = FramedPrivateData.decode(foreign);
        assertNull(decoded.region());
        assertArrayEquals(foreign, decoded.application());
        assertArrayEquals(new byte[0], FramedPrivateData.decode(new byte[0]).application());
    }

    @Test
    void aHeaderPromisingMoreThanArrivedIsRefused() {
        byte[] sent = new FramedPrivateData(REGION, new byte[10]).encode(ConnParam.MAX_ACCEPT_PRIVATE_DATA);
        CmException e = assertThrows(CmException.class, () -> FramedPrivateData.decode(Arrays.copyOf(sent, sent.length - 1)));
        assertEquals("EPROTO", e.errnoName());
        assertTrue(e.getMessage().contains("says 10 application bytes and a region but carries 34 bytes"), e.getMessage());
    }

    /**
     * Every limit a call is checked against fits the one-byte length rdma_cm passes it in
     * ({@code rdma_conn_param.private_data_len}, {@code rdma_reject}'s {@code uint8_t}): iWARP's 512 (MPA) was
     * let through and then cut by the cast to {@code byte} (300 bytes went out as 44).
     */
    @Test
    void everyLimitFitsRdmaCmsOneByteLength() {
        for (int limit : new int[] {ConnParam.MAX_CONNECT_PRIVATE_DATA, ConnParam.MAX_ACCEPT_PRIVATE_DATA,
                ConnParam.MAX_REJECT_PRIVATE_DATA, ConnParam.MAX_UD_CONNECT_PRIVATE_DATA,
                ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA, ConnParam.MAX_IWARP_PRIVATE_DATA}) {
            assertTrue(limit <= 255, limit + " bytes do not fit private_data_len");
        }
    }
}
