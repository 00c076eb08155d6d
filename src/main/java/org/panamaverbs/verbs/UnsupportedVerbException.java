package org.panamaverbs.verbs;

/**
 * The device (or the queue pair as created) does not support what was asked, and the library refused
 * it before calling the provider, which would otherwise fail with an obscure errno or misbehave.
 * The message says what the device lacks and what would provide it.
 */
public class UnsupportedVerbException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** What the device or object lacks; part of the serialized form. */
    private final String lacking;

    /**
     * Makes the exception for a refused {@code verb}; its errno is 0, as no native call failed. The message is
     * {@code "<verb> failed: not supported: <lacking>; <remedy>"}.
     *
     * @param verb    the C verb that was refused, e.g. {@code "ibv_post_send"}
     * @param lacking what the device or object lacks, e.g. {@code "max_inline_data is 0"}
     * @param remedy  what would support it, e.g. {@code "create the queue pair with maxInlineData >= 64"};
     *                null or empty to name none
     */
    public UnsupportedVerbException(String verb, String lacking, String remedy) {
        super(verb, 0, "not supported: " + lacking + (remedy == null || remedy.isEmpty() ? "" : "; " + remedy));
        this.lacking = lacking;
    }

    /**
     * What the device or object lacks.
     *
     * @return the {@code lacking} text given at construction, without the verb or the remedy
     */
    public String lacking() {
        return lacking;
    }
}
