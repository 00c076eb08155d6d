package org.panamaverbs.cm;

import java.io.IOException;

/**
 * An out-of-band exchange failed: no peer connected in time, the peer sent nothing, too little, or
 * something that is not an endpoint message, closed the connection early, or could not be reached. The
 * message says which, names the peer's address, and suggests a cause; the cause is the underlying
 * socket exception or the {@link IllegalArgumentException} from {@link ExchangeMessage#decode}.
 */
public class ExchangeException extends IOException {
    private static final long serialVersionUID = 1L;

    ExchangeException(String message, Throwable cause) {
        super(message, cause);
    }
}
