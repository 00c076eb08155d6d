package org.panamaverbs.internal;

import static org.panamaverbs.ffi.ibverbs_h$shared.C_CHAR;
import static org.panamaverbs.ffi.ibverbs_h$shared.C_INT;
import static org.panamaverbs.ffi.ibverbs_h$shared.C_LONG;
import static org.panamaverbs.ffi.ibverbs_h$shared.C_POINTER;
import static org.panamaverbs.ffi.ibverbs_h$shared.C_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.NoSuchElementException;

/**
 * The libibverbs and librdmacm functions the facade links itself (with errno captured, {@link CallState}, or with
 * argument types of its own): each one's C signature as the generated bindings declare it, and its address, looked up
 * without them. The generated {@code ibverbs_h.f$address()} and {@code f$descriptor()} initialize f's holder class,
 * which links a plain handle for f too, one the facade never calls; every link of a new signature spins classes, which
 * a JVM's start pays for (seconds each under emulation, docs/benchmarks/ci-time.md). {@code NativeFunctionTest} keeps
 * each signature equal to the generated one.
 */
public enum NativeFunction {
    IBV_ALLOC_PD(Library.IBVERBS, "ibv_alloc_pd", FunctionDescriptor.of(C_POINTER, C_POINTER)),
    IBV_ATTACH_MCAST(Library.IBVERBS, "ibv_attach_mcast", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SHORT)),
    IBV_CREATE_AH(Library.IBVERBS, "ibv_create_ah", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER)),
    IBV_CREATE_COMP_CHANNEL(Library.IBVERBS, "ibv_create_comp_channel", FunctionDescriptor.of(C_POINTER, C_POINTER)),
    IBV_CREATE_CQ(Library.IBVERBS, "ibv_create_cq", FunctionDescriptor.of(C_POINTER, C_POINTER, C_INT, C_POINTER, C_POINTER, C_INT)),
    IBV_CREATE_QP(Library.IBVERBS, "ibv_create_qp", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER)),
    IBV_CREATE_SRQ(Library.IBVERBS, "ibv_create_srq", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER)),
    IBV_DETACH_MCAST(Library.IBVERBS, "ibv_detach_mcast", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SHORT)),
    IBV_GET_ASYNC_EVENT(Library.IBVERBS, "ibv_get_async_event", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    IBV_GET_CQ_EVENT(Library.IBVERBS, "ibv_get_cq_event", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER)),
    IBV_GET_DEVICE_LIST(Library.IBVERBS, "ibv_get_device_list", FunctionDescriptor.of(C_POINTER, C_POINTER)),
    IBV_OPEN_DEVICE(Library.IBVERBS, "ibv_open_device", FunctionDescriptor.of(C_POINTER, C_POINTER)),
    IBV_QUERY_GID(Library.IBVERBS, "ibv_query_gid", FunctionDescriptor.of(C_INT, C_POINTER, C_CHAR, C_INT, C_POINTER)),
    IBV_REG_MR(Library.IBVERBS, "ibv_reg_mr", FunctionDescriptor.of(C_POINTER, C_POINTER, C_POINTER, C_LONG, C_INT)),
    RDMA_ACCEPT(Library.RDMACM, "rdma_accept", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    RDMA_ACK_CM_EVENT(Library.RDMACM, "rdma_ack_cm_event", FunctionDescriptor.of(C_INT, C_POINTER)),
    RDMA_BIND_ADDR(Library.RDMACM, "rdma_bind_addr", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    RDMA_CONNECT(Library.RDMACM, "rdma_connect", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    RDMA_CREATE_EP(Library.RDMACM, "rdma_create_ep", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_POINTER)),
    RDMA_CREATE_EVENT_CHANNEL(Library.RDMACM, "rdma_create_event_channel", FunctionDescriptor.of(C_POINTER)),
    RDMA_CREATE_ID(Library.RDMACM, "rdma_create_id", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_INT)),
    RDMA_CREATE_QP(Library.RDMACM, "rdma_create_qp", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER)),
    RDMA_DESTROY_ID(Library.RDMACM, "rdma_destroy_id", FunctionDescriptor.of(C_INT, C_POINTER)),
    RDMA_DISCONNECT(Library.RDMACM, "rdma_disconnect", FunctionDescriptor.of(C_INT, C_POINTER)),
    RDMA_GET_CM_EVENT(Library.RDMACM, "rdma_get_cm_event", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    RDMA_GETADDRINFO(Library.RDMACM, "rdma_getaddrinfo", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_POINTER)),
    RDMA_LISTEN(Library.RDMACM, "rdma_listen", FunctionDescriptor.of(C_INT, C_POINTER, C_INT)),
    RDMA_MIGRATE_ID(Library.RDMACM, "rdma_migrate_id", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER)),
    RDMA_REJECT(Library.RDMACM, "rdma_reject", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_CHAR)),
    RDMA_RESOLVE_ADDR(Library.RDMACM, "rdma_resolve_addr", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_INT)),
    RDMA_RESOLVE_ROUTE(Library.RDMACM, "rdma_resolve_route", FunctionDescriptor.of(C_INT, C_POINTER, C_INT)),
    RDMA_SET_OPTION(Library.RDMACM, "rdma_set_option", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_INT, C_POINTER, C_LONG));

    private final Library library;
    private final String symbol;
    private final FunctionDescriptor descriptor;

    NativeFunction(Library library, String symbol, FunctionDescriptor descriptor) {
        this.library = library;
        this.symbol = symbol;
        this.descriptor = descriptor;
    }

    /** The C name. */
    public String symbol() {
        return symbol;
    }

    /** The C signature, in the generated bindings' layouts (pointers as segments of any size). */
    public FunctionDescriptor descriptor() {
        return descriptor;
    }

    /**
     * The function's address in the library the generated bindings load (by its soname, through the dynamic linker).
     *
     * @throws NoSuchElementException if the library lacks it, as the generated holder would
     */
    public MemorySegment address() {
        return library.lookup().find(symbol).orElseThrow(() -> new NoSuchElementException("Symbol not found: " + symbol));
    }

    /** librdmacm is loaded only when one of its functions is first linked: a verbs-only program needs none. */
    private enum Library {
        IBVERBS, RDMACM;

        SymbolLookup lookup() {
            return this == IBVERBS ? Ibverbs.LOOKUP : Rdmacm.LOOKUP;
        }
    }

    private static final class Ibverbs {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(NativeLibrary.IBVERBS, Arena.global());
    }

    private static final class Rdmacm {
        static final SymbolLookup LOOKUP = SymbolLookup.libraryLookup(NativeLibrary.RDMACM, Arena.global());
    }
}
