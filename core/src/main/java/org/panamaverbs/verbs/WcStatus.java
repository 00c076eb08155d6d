package org.panamaverbs.verbs;

/** {@code enum ibv_wc_status}: the outcome of a work request, from its completion. */
public enum WcStatus {
    SUCCESS(0),
    LOC_LEN_ERR(1),
    LOC_QP_OP_ERR(2),
    LOC_EEC_OP_ERR(3),
    LOC_PROT_ERR(4),
    WR_FLUSH_ERR(5),
    MW_BIND_ERR(6),
    BAD_RESP_ERR(7),
    LOC_ACCESS_ERR(8),
    REM_INV_REQ_ERR(9),
    REM_ACCESS_ERR(10),
    REM_OP_ERR(11),
    RETRY_EXC_ERR(12),
    RNR_RETRY_EXC_ERR(13),
    LOC_RDD_VIOL_ERR(14),
    REM_INV_RD_REQ_ERR(15),
    REM_ABORT_ERR(16),
    INV_EECN_ERR(17),
    INV_EEC_STATE_ERR(18),
    FATAL_ERR(19),
    RESP_TIMEOUT_ERR(20),
    GENERAL_ERR(21),
    TM_ERR(22),
    TM_RNDV_INCOMPLETE(23),
    UNKNOWN(-1);

    private static final CodeTable<WcStatus> BY_CODE = CodeTable.orUnknown(values(), WcStatus::code, UNKNOWN);

    private final int code;

    WcStatus(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C value; allocation-free. A value this library does not know (a newer
     * libibverbs, kernel or provider may return one) gives {@link #UNKNOWN}, never an exception or null.
     */
    public static WcStatus of(int code) {
        return BY_CODE.of(code);
    }
}
