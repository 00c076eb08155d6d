package com.ibm.disni.verbs;

import java.io.IOException;

/** {@link SVCDeregMr}: {@code ibv_dereg_mr} through {@code MemoryRegion.close()}; executing it again does nothing. */
final class DeregMrCall extends SVCDeregMr {

    private final IbvMr mr;
    private final int lkey;
    private volatile boolean valid = true;

    DeregMrCall(IbvMr mr) {
        this.mr = mr;
        this.lkey = mr.pv.lkey();
    }

    @Override
    public SVCDeregMr execute() throws IOException {
        if (!valid) {
            throw new IOException("ibv_dereg_mr: this call was freed");
        }
        try {
            mr.pv.close();
        } catch (RuntimeException e) {
            throw Failures.io("ibv_dereg_mr", e);
        }
        mr.getContext().regions.remove(lkey, mr);
        mr.close();
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCDeregMr free() {
        valid = false;
        return this;
    }
}
