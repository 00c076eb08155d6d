package org.panamaverbs.verbs;

/**
 * What a device is, as far as this library's gates are concerned: one of VMware's paravirtual RDMA
 * (PVRDMA) hardware versions, or any other device (rxe, mlx5, ...), which is gated only by what it reports.
 */
public enum HardwareClass {
    /** ESXi 6.5, VM hardware version 13: RC and UD only, at most 3 UD queue pairs, no SRQ, RoCE v1. */
    PVRDMA_HWV13("PVRDMA HWv13 (ESXi 6.5)"),
    /** ESXi 6.7, VM hardware version 14: adds shared receive queues and RoCE v2. */
    PVRDMA_HWV14("PVRDMA HWv14 (ESXi 6.7)"),
    /** Not a PVRDMA device. */
    NOT_PVRDMA("not PVRDMA");

    private final String description;

    HardwareClass(String description) {
        this.description = description;
    }

    /** {@return a name for messages, e.g. {@code "PVRDMA HWv14 (ESXi 6.7)"}} */
    public String description() {
        return description;
    }

    /** {@return whether this is one of the PVRDMA classes: true for all but {@link #NOT_PVRDMA}} */
    public boolean isPvrdma() {
        return this != NOT_PVRDMA;
    }

    /**
     * The value of the {@code panamaverbs.profile} system property that emulates this class.
     *
     * @return {@code "pvrdma-hwv13"}, {@code "pvrdma-hwv14"}, or {@code "native"} (no emulation) for
     *         {@link #NOT_PVRDMA}
     */
    public String propertyValue() {
        return switch (this) {
            case PVRDMA_HWV13 -> "pvrdma-hwv13";
            case PVRDMA_HWV14 -> "pvrdma-hwv14";
            case NOT_PVRDMA -> "native";
        };
    }

    /**
     * The class named by a {@code panamaverbs.profile} value.
     *
     * @param value a {@link #propertyValue()}, in any case, surrounding blanks ignored; not null
     * @return the class it names
     * @throws IllegalArgumentException for another value
     */
    public static HardwareClass ofPropertyValue(String value) {
        for (HardwareClass c : values()) {
            if (c.propertyValue().equalsIgnoreCase(value.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("panamaverbs.profile must be pvrdma-hwv13, pvrdma-hwv14 or native, not " + value);
    }
}
