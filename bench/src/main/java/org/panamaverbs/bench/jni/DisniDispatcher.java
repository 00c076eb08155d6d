package org.panamaverbs.bench.jni;

import java.io.IOException;

/**
 * The data-path natives of DiSNI's {@code NativeDispatcher} (v2.1), for the JNI baseline of
 * {@code NativeDataPath}: instance methods taking raw C pointers as {@code long}, a failed post throwing
 * {@link IOException} from native code. Implemented by {@code bench/native/jni_baseline.c}, loaded from
 * {@code java.library.path} as {@code libpvjnibaseline.so} (DiSNI loads {@code libdisni.so} the same way).
 */
public final class DisniDispatcher {
    static {
        System.loadLibrary("pvjnibaseline");
    }

    /** {@code ibv_post_send(qp, wrList, &bad_wr)}; throws IOException when it fails. */
    public native int _postSend(long qp, long wrList) throws IOException;

    /** {@code ibv_post_recv(qp, wrList, &bad_wr)}; throws IOException when it fails. */
    public native int _postRecv(long qp, long wrList) throws IOException;

    /** {@code ibv_poll_cq(cq, ne, wcList)}. */
    public native int _pollCQ(long cq, int ne, long wcList);
}
