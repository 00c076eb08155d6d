package org.panamaverbs.verbs;

/**
 * Linux errno values by name and message, so errors read {@code EINVAL (Invalid argument)} rather
 * than a bare number. Names and texts are those of Linux x86_64 and glibc's {@code strerror}.
 */
public final class Errno {
    private static final String[][] TABLE = buildTable();

    private Errno() {
    }

    /**
     * The symbolic name of an errno value, for example {@code "EINVAL"} for 22. Negative values (as
     * some verbs return them) are read as their absolute value.
     *
     * @param errno the errno value, positive or negated
     * @return the name, or {@code "errno N"} for a value Linux does not define
     */
    public static String name(int errno) {
        String[] row = row(errno);
        return row != null ? row[0] : "errno " + Math.abs(errno);
    }

    /**
     * The readable message of an errno value, for example {@code "Invalid argument"} for 22. Negative values
     * are read as their absolute value.
     *
     * @param errno the errno value, positive or negated
     * @return the message, or {@code "Unknown error N"} as glibc says it
     */
    public static String message(int errno) {
        String[] row = row(errno);
        return row != null ? row[1] : "Unknown error " + Math.abs(errno);
    }

    /**
     * Name and message together: {@code "EINVAL (Invalid argument)"}.
     *
     * @param errno the errno value, positive or negated
     * @return {@link #name(int)} followed by {@link #message(int)} in parentheses
     */
    public static String describe(int errno) {
        return name(errno) + " (" + message(errno) + ")";
    }

    private static String[] row(int errno) {
        int n = Math.abs(errno);
        return n >= 0 && n < TABLE.length ? TABLE[n] : null; // Math.abs(Integer.MIN_VALUE) stays negative
    }

    private static String[][] buildTable() {
        String[][] table = new String[133][];
        table[1] = new String[] {"EPERM", "Operation not permitted"};
        table[2] = new String[] {"ENOENT", "No such file or directory"};
        table[3] = new String[] {"ESRCH", "No such process"};
        table[4] = new String[] {"EINTR", "Interrupted system call"};
        table[5] = new String[] {"EIO", "Input/output error"};
        table[6] = new String[] {"ENXIO", "No such device or address"};
        table[7] = new String[] {"E2BIG", "Argument list too long"};
        table[8] = new String[] {"ENOEXEC", "Exec format error"};
        table[9] = new String[] {"EBADF", "Bad file descriptor"};
        table[10] = new String[] {"ECHILD", "No child processes"};
        table[11] = new String[] {"EAGAIN", "Resource temporarily unavailable"};
        table[12] = new String[] {"ENOMEM", "Cannot allocate memory"};
        table[13] = new String[] {"EACCES", "Permission denied"};
        table[14] = new String[] {"EFAULT", "Bad address"};
        table[15] = new String[] {"ENOTBLK", "Block device required"};
        table[16] = new String[] {"EBUSY", "Device or resource busy"};
        table[17] = new String[] {"EEXIST", "File exists"};
        table[18] = new String[] {"EXDEV", "Invalid cross-device link"};
        table[19] = new String[] {"ENODEV", "No such device"};
        table[20] = new String[] {"ENOTDIR", "Not a directory"};
        table[21] = new String[] {"EISDIR", "Is a directory"};
        table[22] = new String[] {"EINVAL", "Invalid argument"};
        table[23] = new String[] {"ENFILE", "Too many open files in system"};
        table[24] = new String[] {"EMFILE", "Too many open files"};
        table[25] = new String[] {"ENOTTY", "Inappropriate ioctl for device"};
        table[26] = new String[] {"ETXTBSY", "Text file busy"};
        table[27] = new String[] {"EFBIG", "File too large"};
        table[28] = new String[] {"ENOSPC", "No space left on device"};
        table[29] = new String[] {"ESPIPE", "Illegal seek"};
        table[30] = new String[] {"EROFS", "Read-only file system"};
        table[31] = new String[] {"EMLINK", "Too many links"};
        table[32] = new String[] {"EPIPE", "Broken pipe"};
        table[33] = new String[] {"EDOM", "Numerical argument out of domain"};
        table[34] = new String[] {"ERANGE", "Numerical result out of range"};
        table[35] = new String[] {"EDEADLK", "Resource deadlock avoided"};
        table[36] = new String[] {"ENAMETOOLONG", "File name too long"};
        table[37] = new String[] {"ENOLCK", "No locks available"};
        table[38] = new String[] {"ENOSYS", "Function not implemented"};
        table[39] = new String[] {"ENOTEMPTY", "Directory not empty"};
        table[40] = new String[] {"ELOOP", "Too many levels of symbolic links"};
        table[42] = new String[] {"ENOMSG", "No message of desired type"};
        table[43] = new String[] {"EIDRM", "Identifier removed"};
        table[44] = new String[] {"ECHRNG", "Channel number out of range"};
        table[45] = new String[] {"EL2NSYNC", "Level 2 not synchronized"};
        table[46] = new String[] {"EL3HLT", "Level 3 halted"};
        table[47] = new String[] {"EL3RST", "Level 3 reset"};
        table[48] = new String[] {"ELNRNG", "Link number out of range"};
        table[49] = new String[] {"EUNATCH", "Protocol driver not attached"};
        table[50] = new String[] {"ENOCSI", "No CSI structure available"};
        table[51] = new String[] {"EL2HLT", "Level 2 halted"};
        table[52] = new String[] {"EBADE", "Invalid exchange"};
        table[53] = new String[] {"EBADR", "Invalid request descriptor"};
        table[54] = new String[] {"EXFULL", "Exchange full"};
        table[55] = new String[] {"ENOANO", "No anode"};
        table[56] = new String[] {"EBADRQC", "Invalid request code"};
        table[57] = new String[] {"EBADSLT", "Invalid slot"};
        table[59] = new String[] {"EBFONT", "Bad font file format"};
        table[60] = new String[] {"ENOSTR", "Device not a stream"};
        table[61] = new String[] {"ENODATA", "No data available"};
        table[62] = new String[] {"ETIME", "Timer expired"};
        table[63] = new String[] {"ENOSR", "Out of streams resources"};
        table[64] = new String[] {"ENONET", "Machine is not on the network"};
        table[65] = new String[] {"ENOPKG", "Package not installed"};
        table[66] = new String[] {"EREMOTE", "Object is remote"};
        table[67] = new String[] {"ENOLINK", "Link has been severed"};
        table[68] = new String[] {"EADV", "Advertise error"};
        table[69] = new String[] {"ESRMNT", "Srmount error"};
        table[70] = new String[] {"ECOMM", "Communication error on send"};
        table[71] = new String[] {"EPROTO", "Protocol error"};
        table[72] = new String[] {"EMULTIHOP", "Multihop attempted"};
        table[73] = new String[] {"EDOTDOT", "RFS specific error"};
        table[74] = new String[] {"EBADMSG", "Bad message"};
        table[75] = new String[] {"EOVERFLOW", "Value too large for defined data type"};
        table[76] = new String[] {"ENOTUNIQ", "Name not unique on network"};
        table[77] = new String[] {"EBADFD", "File descriptor in bad state"};
        table[78] = new String[] {"EREMCHG", "Remote address changed"};
        table[79] = new String[] {"ELIBACC", "Can not access a needed shared library"};
        table[80] = new String[] {"ELIBBAD", "Accessing a corrupted shared library"};
        table[81] = new String[] {"ELIBSCN", ".lib section in a.out corrupted"};
        table[82] = new String[] {"ELIBMAX", "Attempting to link in too many shared libraries"};
        table[83] = new String[] {"ELIBEXEC", "Cannot exec a shared library directly"};
        table[84] = new String[] {"EILSEQ", "Invalid or incomplete multibyte or wide character"};
        table[85] = new String[] {"ERESTART", "Interrupted system call should be restarted"};
        table[86] = new String[] {"ESTRPIPE", "Streams pipe error"};
        table[87] = new String[] {"EUSERS", "Too many users"};
        table[88] = new String[] {"ENOTSOCK", "Socket operation on non-socket"};
        table[89] = new String[] {"EDESTADDRREQ", "Destination address required"};
        table[90] = new String[] {"EMSGSIZE", "Message too long"};
        table[91] = new String[] {"EPROTOTYPE", "Protocol wrong type for socket"};
        table[92] = new String[] {"ENOPROTOOPT", "Protocol not available"};
        table[93] = new String[] {"EPROTONOSUPPORT", "Protocol not supported"};
        table[94] = new String[] {"ESOCKTNOSUPPORT", "Socket type not supported"};
        table[95] = new String[] {"EOPNOTSUPP", "Operation not supported"};
        table[96] = new String[] {"EPFNOSUPPORT", "Protocol family not supported"};
        table[97] = new String[] {"EAFNOSUPPORT", "Address family not supported by protocol"};
        table[98] = new String[] {"EADDRINUSE", "Address already in use"};
        table[99] = new String[] {"EADDRNOTAVAIL", "Cannot assign requested address"};
        table[100] = new String[] {"ENETDOWN", "Network is down"};
        table[101] = new String[] {"ENETUNREACH", "Network is unreachable"};
        table[102] = new String[] {"ENETRESET", "Network dropped connection on reset"};
        table[103] = new String[] {"ECONNABORTED", "Software caused connection abort"};
        table[104] = new String[] {"ECONNRESET", "Connection reset by peer"};
        table[105] = new String[] {"ENOBUFS", "No buffer space available"};
        table[106] = new String[] {"EISCONN", "Transport endpoint is already connected"};
        table[107] = new String[] {"ENOTCONN", "Transport endpoint is not connected"};
        table[108] = new String[] {"ESHUTDOWN", "Cannot send after transport endpoint shutdown"};
        table[109] = new String[] {"ETOOMANYREFS", "Too many references: cannot splice"};
        table[110] = new String[] {"ETIMEDOUT", "Connection timed out"};
        table[111] = new String[] {"ECONNREFUSED", "Connection refused"};
        table[112] = new String[] {"EHOSTDOWN", "Host is down"};
        table[113] = new String[] {"EHOSTUNREACH", "No route to host"};
        table[114] = new String[] {"EALREADY", "Operation already in progress"};
        table[115] = new String[] {"EINPROGRESS", "Operation now in progress"};
        table[116] = new String[] {"ESTALE", "Stale file handle"};
        table[117] = new String[] {"EUCLEAN", "Structure needs cleaning"};
        table[118] = new String[] {"ENOTNAM", "Not a XENIX named type file"};
        table[119] = new String[] {"ENAVAIL", "No XENIX semaphores available"};
        table[120] = new String[] {"EISNAM", "Is a named type file"};
        table[121] = new String[] {"EREMOTEIO", "Remote I/O error"};
        table[122] = new String[] {"EDQUOT", "Disk quota exceeded"};
        table[123] = new String[] {"ENOMEDIUM", "No medium found"};
        table[124] = new String[] {"EMEDIUMTYPE", "Wrong medium type"};
        table[125] = new String[] {"ECANCELED", "Operation canceled"};
        table[126] = new String[] {"ENOKEY", "Required key not available"};
        table[127] = new String[] {"EKEYEXPIRED", "Key has expired"};
        table[128] = new String[] {"EKEYREVOKED", "Key has been revoked"};
        table[129] = new String[] {"EKEYREJECTED", "Key was rejected by service"};
        table[130] = new String[] {"EOWNERDEAD", "Owner died"};
        table[131] = new String[] {"ENOTRECOVERABLE", "State not recoverable"};
        table[132] = new String[] {"ERFKILL", "Operation not possible due to RF-kill"};
        return table;
    }

    // Values the facade checks by number.
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EFAULT = 14;
    static final int EBUSY = 16;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int ENODATA = 61;
    static final int EOPNOTSUPP = 95;
}
