package com.ibm.disni.verbs;

import java.io.IOException;
import org.panamaverbs.verbs.Errno;

/**
 * How this module reports what Panama Verbs throws: DiSNI 2.1's verbs declare {@code IOException}, so an
 * unchecked failure of the library ({@code VerbsException} naming the C call and its errno, a closed object,
 * an argument the device refuses) becomes an {@code IOException} with the same message and the original as
 * its cause.
 */
final class Failures {

    private Failures() {
    }

    static IOException io(String call, RuntimeException e) {
        String message = e.getMessage();
        if (message == null || !message.startsWith(call)) {
            message = call + " failed: " + (message == null ? e.toString() : message);
        }
        return new IOException(message, e);
    }

    /** A post the provider refused: its errno and which request of the chain failed. */
    static IOException post(String verb, int rc, int failedIndex, int count) {
        return new IOException(verb + " failed: " + Errno.describe(rc) + " (request " + failedIndex
                + " of " + count + ")");
    }

    static IOException notOurs(Object object) {
        return new IOException(object.getClass().getName() + " was not created by this module's verbs (RdmaVerbs /"
                + " RdmaCm), so it has no native object behind it");
    }
}
