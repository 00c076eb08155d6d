package org.panamaverbs.verbs;

/**
 * What a device (under its detected or emulated {@link DeviceProfile}) says to one {@link Capability}, as
 * {@link Context#capabilities()} reports it. The refusal is the message of the very exception the library's
 * gate throws when a program asks (the gates and this report share one code path in {@code DevicePolicy}).
 *
 * @param capability what was asked
 * @param status     allowed, allowed up to a limit, refused by a gate, or absent (nothing to ask for)
 * @param detail     a short note: the limit, why it is absent, what the device reports; may be empty
 * @param refusal    for {@link Status#REFUSED}, and for {@link Status#LIMITED} past the limit: the exact
 *                   message a program gets (an {@link UnsupportedVerbException}, or the
 *                   {@link RdmaUnavailableException} of a missing librdmacm); null otherwise
 */
public record CapabilityVerdict(Capability capability, Status status, String detail, String refusal) {

    /** The kinds of answer. */
    public enum Status {
        /** The library lets it through, and the device carries it. */
        ALLOWED,
        /** Allowed up to a limit (see {@link #detail()}); past it, {@link #refusal()}. */
        LIMITED,
        /** A gate refuses it with {@link #refusal()}, before the provider is called. */
        REFUSED,
        /**
         * The device offers none (no GID of that RoCE version, no memory windows, no extended verbs) and no
         * Panama Verbs call refuses it: there is simply nothing to use. {@link #detail()} says why and what a C
         * program would get.
         */
        ABSENT
    }

    /**
     * Checks that a refusal message comes exactly with the statuses that have one.
     *
     * @param capability what was asked
     * @param status     the answer
     * @param detail     a short note; null is stored as the empty string
     * @param refusal    the refusal message: required for {@link Status#REFUSED} and {@link Status#LIMITED},
     *                   null for {@link Status#ALLOWED} and {@link Status#ABSENT}
     * @throws IllegalArgumentException if {@code refusal} is missing for REFUSED or LIMITED, or given for
     *                                  ALLOWED or ABSENT
     */
    public CapabilityVerdict {
        detail = detail == null ? "" : detail;
        if ((status == Status.REFUSED || status == Status.LIMITED) != (refusal != null)) {
            throw new IllegalArgumentException(status + " needs " + (refusal == null ? "a" : "no") + " refusal message");
        }
    }

    /**
     * Whether a program may use it (within the limit, if {@link Status#LIMITED}).
     *
     * @return true for {@link Status#ALLOWED} and {@link Status#LIMITED}; false for {@link Status#REFUSED}
     *         and {@link Status#ABSENT}
     */
    public boolean allowed() {
        return status == Status.ALLOWED || status == Status.LIMITED;
    }
}
