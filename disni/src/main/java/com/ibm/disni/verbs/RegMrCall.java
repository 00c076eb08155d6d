package com.ibm.disni.verbs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.MemoryRegion;

/** {@link SVCRegMr}: {@code ibv_reg_mr} of prepared memory, through {@code ProtectionDomain.register}. */
final class RegMrCall extends SVCRegMr {

    private final IbvPd pd;
    private final MemorySegment memory;
    private final int accessBits;
    private final Access[] access;
    /** Whether the memory's lifetime is visible to Java (a buffer), not a trusted raw address. */
    private final boolean memoryKnown;
    private volatile boolean valid = true;
    private volatile IbvMr mr;

    RegMrCall(IbvPd pd, MemorySegment memory, int accessBits, boolean memoryKnown) throws IOException {
        if (pd.pv == null) {
            throw Failures.notOurs(pd);
        }
        this.pd = pd;
        this.memory = memory;
        this.accessBits = accessBits;
        this.access = PanamaVerbs.access(accessBits);
        this.memoryKnown = memoryKnown;
    }

    @Override
    public SVCRegMr execute() throws IOException {
        if (!valid) {
            throw new IOException("ibv_reg_mr: this call was freed");
        }
        MemoryRegion region;
        try {
            region = pd.pv.register(memory, access);
        } catch (RuntimeException e) {
            throw Failures.io("ibv_reg_mr", e);
        }
        IbvMr registered = new IbvMr(pd.getContext(), region, accessBits, PanamaVerbs.REGION_HANDLES.incrementAndGet(),
                memoryKnown);
        pd.getContext().regions.put(registered.getLkey(), registered);
        mr = registered;
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCRegMr free() {
        valid = false;
        return this;
    }

    @Override
    public IbvMr getMr() {
        return mr;
    }
}
