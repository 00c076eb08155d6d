package org.panamaverbs.cm;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * What a {@link Connection} puts in rdma_cm's private data: {@code 'P' 'V'}, version 1, flags (bit 0: a
 * region follows), the application's byte count (u8), the {@link RemoteRegion} ({@value RemoteRegion#BYTES}
 * bytes) when flagged, then the application's bytes. The transport pads the field with zeros, which the
 * byte count makes harmless. Data that does not start with the header came from a peer that is not Panama
 * Verbs and is kept whole as the application's.
 *
 * @param region      the region offered, or null
 * @param application the application's bytes
 */
record FramedPrivateData(RemoteRegion region, byte[] application) {
    static final int HEADER = 5;
    private static final byte MAGIC_P = 'P';
    private static final byte MAGIC_V = 'V';
    private static final byte VERSION = 1;

    FramedPrivateData {
        application = application == null ? new byte[0] : application.clone();
    }

    /**
     * The bytes to send.
     *
     * @throws IllegalArgumentException if they exceed {@code limit} (the call's private data size)
     */
    byte[] encode(int limit) {
        int regionBytes = region == null ? 0 : RemoteRegion.BYTES;
        if (HEADER + regionBytes + application.length > limit || application.length > 255) {
            throw new IllegalArgumentException("private data of " + application.length + " bytes does not fit: this call"
                    + " carries " + limit + " bytes, of which " + (HEADER + regionBytes) + " describe the connection"
                    + (region == null ? "" : " and the offered region"));
        }
        byte[] data = new byte[HEADER + regionBytes + application.length];
        data[0] = MAGIC_P;
        data[1] = MAGIC_V;
        data[2] = VERSION;
        data[3] = (byte) (region == null ? 0 : 1);
        data[4] = (byte) application.length;
        if (region != null) {
            region.writeTo(MemorySegment.ofArray(data), HEADER);
        }
        System.arraycopy(application, 0, data, HEADER + regionBytes, application.length);
        return data;
    }

    /**
     * Reads what a peer sent.
     *
     * @throws CmException if the header promises more bytes than arrived
     */
    static FramedPrivateData decode(byte[] data) {
        if (data.length < HEADER || data[0] != MAGIC_P || data[1] != MAGIC_V || data[2] != VERSION) {
            return new FramedPrivateData(null, data); // not a Panama Verbs peer: everything is the application's
        }
        boolean hasRegion = (data[3] & 1) != 0;
        int length = Byte.toUnsignedInt(data[4]);
        int regionBytes = hasRegion ? RemoteRegion.BYTES : 0;
        if (HEADER + regionBytes + length > data.length) {
            throw new CmException("rdma_cm private data", CmException.EPROTO, null, 0, data, "the peer's private data"
                    + " says " + length + " application bytes" + (hasRegion ? " and a region" : "") + " but carries "
                    + data.length + " bytes");
        }
        return new FramedPrivateData(hasRegion ? RemoteRegion.readFrom(MemorySegment.ofArray(data), HEADER) : null,
                Arrays.copyOfRange(data, HEADER + regionBytes, HEADER + regionBytes + length));
    }

    @Override
    public byte[] application() {
        return application.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FramedPrivateData p && java.util.Objects.equals(region, p.region)
                && Arrays.equals(application, p.application);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(region) * 31 + Arrays.hashCode(application);
    }
}
