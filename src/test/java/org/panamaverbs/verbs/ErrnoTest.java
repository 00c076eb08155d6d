package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ErrnoTest {

    @Test
    void namesAndMessagesAreLinuxOnes() {
        assertEquals("EINVAL", Errno.name(22));
        assertEquals("Invalid argument", Errno.message(22));
        assertEquals("ENOMEM", Errno.name(12));
        assertEquals("EOPNOTSUPP", Errno.name(95));
        assertEquals("ENOSYS", Errno.name(38));
        assertEquals("EFAULT", Errno.name(14));
        assertEquals("ENODATA", Errno.name(61));
        assertEquals("EAGAIN", Errno.name(11));
        assertEquals("EDEADLK", Errno.name(35));
        assertEquals("EINVAL (Invalid argument)", Errno.describe(22));
    }

    @Test
    void negativeReturnCodesReadAsTheirErrno() {
        assertEquals("EINVAL", Errno.name(-22));
    }

    @Test
    void unknownValuesStayReadable() {
        assertEquals("errno 4000", Errno.name(4000));
        assertEquals("Unknown error 4000", Errno.message(4000));
        // Math.abs(MIN_VALUE) is negative: still a readable answer, not an exception
        assertEquals("errno -2147483648", Errno.name(Integer.MIN_VALUE));
        assertEquals("Unknown error -2147483648", Errno.message(Integer.MIN_VALUE));
    }

    @Test
    void verbsExceptionNamesVerbErrnoAndDetail() {
        VerbsException e = new VerbsException("ibv_create_qp", 22, "max_send_wr 100000 exceeds max_qp_wr 16384");
        assertEquals("ibv_create_qp failed: EINVAL (Invalid argument): max_send_wr 100000 exceeds max_qp_wr 16384",
                e.getMessage());
        assertEquals("ibv_create_qp", e.verb());
        assertEquals(22, e.errno());
        assertEquals("EINVAL", e.errnoName());
        assertEquals(12, new VerbsException("ibv_poll_cq", -12, null).errno());
    }

    @Test
    void unsupportedVerbSaysWhatIsLackingAndWhatWouldHelp() {
        UnsupportedVerbException e = new UnsupportedVerbException("ibv_post_send", "max_inline_data is 0",
                "create the queue pair with maxInlineData >= 64");
        assertEquals("ibv_post_send failed: not supported: max_inline_data is 0; create the queue pair with"
                + " maxInlineData >= 64", e.getMessage());
        assertEquals("none", e.errnoName());
        assertEquals("max_inline_data is 0", e.lacking());
    }
}
