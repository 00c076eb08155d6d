package org.panamaverbs.netty;

import java.io.IOException;

/**
 * Written data waited {@link RdmaChannelOption#WRITE_STALL_TIMEOUT_MILLIS} for the peer's credits without any of it
 * being sent (the peer stopped reading, or its receive buffer stopped being freed): the channel closes after this
 * reaches the pipeline, and the data not sent fails with the close.
 */
public final class RdmaWriteStalledException extends IOException {
    private static final long serialVersionUID = 1L;

    RdmaWriteStalledException(String message) {
        super(message);
    }
}
