package org.panamaverbs.verbs;

/**
 * A verb failed on the control path. The message names the C verb, the errno name and text, and what
 * the caller can do about it, for example
 * {@code "ibv_create_qp failed: EINVAL (Invalid argument): max_send_wr 100000 exceeds max_qp_wr 16384"}.
 *
 * <p>The data path ({@code post_send}, {@code post_recv}, {@code poll_cq}) does not throw this: it returns
 * the provider's code, and the {@code ...OrThrow} variants turn that code into this exception.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The C function that failed; part of the serialized form. */
    private final String verb;
    /** The positive errno value, or 0; part of the serialized form. */
    private final int errno;

    /**
     * Makes the exception; the message is built from the three parts as shown above.
     *
     * @param verb   the C function that failed, e.g. {@code "ibv_reg_mr"}
     * @param errno  the errno it reported (positive; a negative return code is accepted and negated),
     *               or 0 when the failure was not reported through errno
     * @param detail what was asked and what to do about it; may be null
     */
    public VerbsException(String verb, int errno, String detail) {
        super(format(verb, errno, detail));
        this.verb = verb;
        this.errno = Math.abs(errno);
    }

    /**
     * Same, with the cause kept.
     *
     * @param verb   the C function that failed, e.g. {@code "ibv_reg_mr"}
     * @param errno  the errno it reported (positive; a negative return code is accepted and negated),
     *               or 0 when the failure was not reported through errno
     * @param detail what was asked and what to do about it; may be null
     * @param cause  the exception that led to the failure; may be null
     */
    public VerbsException(String verb, int errno, String detail, Throwable cause) {
        super(format(verb, errno, detail), cause);
        this.verb = verb;
        this.errno = Math.abs(errno);
    }

    /**
     * The C verb that failed, e.g. {@code "ibv_modify_qp"}.
     *
     * @return the verb given at construction
     */
    public String verb() {
        return verb;
    }

    /**
     * The errno value, or 0 if the failure did not come with one.
     *
     * @return the errno value, never negative (a negative return code given at construction is stored negated)
     */
    public int errno() {
        return errno;
    }

    /**
     * The errno's symbolic name, e.g. {@code "EINVAL"}, or {@code "none"} when {@link #errno()} is 0.
     *
     * @return the symbolic name, {@code "errno N"} for a value this library has no name for, or {@code "none"}
     */
    public String errnoName() {
        return errno == 0 ? "none" : Errno.name(errno);
    }

    private static String format(String verb, int errno, String detail) {
        StringBuilder sb = new StringBuilder(verb).append(" failed");
        if (errno != 0) {
            sb.append(": ").append(Errno.describe(errno));
        }
        if (detail != null && !detail.isEmpty()) {
            sb.append(": ").append(detail);
        }
        return sb.toString();
    }
}
