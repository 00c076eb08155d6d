package com.ibm.disni.verbs;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCRegMr}: the stateful verb call that registers
 * memory with a protection domain ({@code IbvPd.regMr}), wrapping {@code ibv_reg_mr}. An abstract class, as
 * in DiSNI 2.1 (compiled callers invoke it with {@code invokevirtual}).
 */
public abstract class SVCRegMr implements StatefulVerbCall<SVCRegMr> {

    /** For implementations. */
    public SVCRegMr() {
    }

    /**
     * Returns the region the last {@code execute()} registered; still valid after {@code free()}, which every
     * DiSNI program relies on ({@code regMr(b, access).execute().free().getMr()}).
     *
     * @return the region
     */
    public abstract IbvMr getMr();
}
