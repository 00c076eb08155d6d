/**
 * Panama Verbs: Linux RDMA verbs (libibverbs, librdmacm) from Java through the Foreign Function and
 * Memory API, with no native library of its own.
 *
 * <p>Only {@code org.panamaverbs.verbs} (verbs) and {@code org.panamaverbs.cm} (connection management)
 * are API. The generated bindings ({@code org.panamaverbs.ffi}) and the helpers
 * ({@code org.panamaverbs.internal}) are implementation and may change at any time.
 * Run with {@code --enable-native-access=org.panamaverbs} (module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (class path).
 */
module org.panamaverbs {
    // JFR events of the control path (org.panamaverbs.internal.JfrEvents), only when the runtime has jdk.jfr
    requires static jdk.jfr;
    exports org.panamaverbs.verbs;
    exports org.panamaverbs.cm;
}
