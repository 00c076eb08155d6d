package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaProvider}: where {@link RdmaCm} and
 * {@link RdmaVerbs} come from. There is one provider, this module's, on Panama Verbs (DiSNI 2.1 had one too,
 * its JNI library). Wraps no C call itself.
 */
public abstract class RdmaProvider {

    private static RdmaProvider provider;

    /** For the implementation. */
    protected RdmaProvider() {
    }

    /**
     * Returns the provider of this JVM.
     *
     * @return the single instance
     * @throws IOException never in this module (DiSNI threw it when its native library was outdated)
     */
    public static synchronized RdmaProvider provider() throws IOException {
        if (provider == null) {
            provider = new PanamaProvider();
        }
        return provider;
    }

    /**
     * Returns the connection manager.
     *
     * @return {@link RdmaCm#open()}'s instance
     * @throws IOException never in this module
     */
    public abstract RdmaCm openCm() throws IOException;

    /**
     * Returns the verbs.
     *
     * @return {@link RdmaVerbs#open()}'s instance
     * @throws IOException never in this module
     */
    public abstract RdmaVerbs openVerbs() throws IOException;

    /**
     * Returns the version of DiSNI's native interface this API corresponds to.
     *
     * @return 32
     */
    public abstract int getVersion();

    /** This module's provider. */
    static final class PanamaProvider extends RdmaProvider {
        @Override
        public RdmaCm openCm() {
            return PanamaCm.INSTANCE;
        }

        @Override
        public RdmaVerbs openVerbs() {
            return PanamaVerbs.INSTANCE;
        }

        @Override
        public int getVersion() {
            return RdmaVerbs.VERSION;
        }
    }
}
