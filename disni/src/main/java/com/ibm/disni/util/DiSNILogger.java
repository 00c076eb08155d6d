package com.ibm.disni.util;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.DiSNILogger}: the one slf4j logger of the DiSNI
 * layer, named {@code "com.ibm.disni"} as in DiSNI, so existing logging configuration (for example Crail's
 * {@code log4j.logger.com.ibm.disni=OFF}) keeps applying.
 *
 * <p>Wraps no C call. The module depends on {@code slf4j-api} only and brings no binding: without one on
 * the class path slf4j prints its one-line "no providers" notice and discards the messages; add the binding
 * of your choice (DiSNI 2.1 dragged in {@code slf4j-log4j12} and log4j 1.2). Never throws.
 */
public class DiSNILogger {

    private static Logger logger;

    /** Creates nothing useful; DiSNI 2.1 has this public constructor, so it stays. */
    public DiSNILogger() {
    }

    /**
     * Returns the logger named {@code "com.ibm.disni"}, the same instance on every call.
     *
     * @return the DiSNI layer's slf4j logger
     */
    public static synchronized Logger getLogger() {
        if (logger == null) {
            logger = LoggerFactory.getLogger("com.ibm.disni");
        }
        return logger;
    }
}
