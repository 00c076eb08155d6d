package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.RdmaConnParam}: the parameters of
 * {@code rdma_connect} and {@code rdma_accept}, mirroring C's {@code struct rdma_conn_param}. A plain
 * value holder: it wraps no C call itself and holds no native memory; every field starts at 0.
 *
 * <p>Private data is named by address and length ({@link #setPrivate_data(long)}): that memory (for example a
 * direct buffer, {@code MemoryUtils.getAddress}) must stay alive until the connect or accept that reads it
 * has returned. Connect and accept check what can be checked: bytes inside a region registered through this
 * module from a buffer must lie wholly inside it and are read through it (freed memory is refused); any other
 * address is trusted and copied by the kernel, so memory that is not mapped is refused with
 * {@code IOException} (EFAULT) instead of crashing the process, while freed memory that is still mapped is
 * sent as it is. The safe alternative is a direct buffer kept reachable, or one registered with
 * {@code IbvPd.regMr(ByteBuffer, int)}.
 *
 * <p>DiSNI 2.1 refused {@code setResponder_resources}, {@code setInitiator_depth}, {@code setFlow_control},
 * {@code setSrq} and {@code setQp_num} with {@code IOException("Operation currently not supported")}; here
 * every setter keeps its value. The {@code throws IOException} clauses stay, as declared in 2.1.
 */
public class RdmaConnParam {

    /**
     * Native address of the private data ({@code rdma_conn_param.private_data}), 0 for none; connect and accept
     * copy the bytes during the call.
     */
    protected long private_data_addr;
    /**
     * Length in bytes of the private data ({@code rdma_conn_param.private_data_len}), read as unsigned: at most 56
     * for a connect, 196 for an accept.
     */
    protected byte private_data_len;
    /**
     * Incoming RDMA READ and atomic requests this side serves at once
     * ({@code rdma_conn_param.responder_resources}), read as unsigned; 0 asks this module's connect and accept for
     * the device's maximum.
     */
    protected byte responder_resources;
    /**
     * RDMA READ and atomic requests this side may have outstanding ({@code rdma_conn_param.initiator_depth}), read
     * as unsigned; 0 asks this module's connect and accept for the device's maximum.
     */
    protected byte initiator_depth;
    /**
     * Whether hardware flow control is used ({@code rdma_conn_param.flow_control}); kept, but this module's connect
     * and accept do not pass it on.
     */
    protected byte flow_control;
    /**
     * Transport retries when no ACK arrives ({@code rdma_conn_param.retry_count}), 0 to 7; connect and accept cap
     * larger values at 7.
     */
    protected byte retry_count;
    /**
     * Retries after an RNR NAK ({@code rdma_conn_param.rnr_retry_count}), 0 to 7, 7 meaning without limit; connect
     * and accept cap larger values at 7.
     */
    protected byte rnr_retry_count;
    /**
     * Whether the queue pair uses a shared receive queue ({@code rdma_conn_param.srq}); kept, but this module's
     * connect and accept do not pass it on.
     */
    protected byte srq;
    /**
     * Queue pair number for ids without a queue pair ({@code rdma_conn_param.qp_num}); kept, but this module's
     * connect and accept do not pass it on (its ids connect their own queue pair).
     */
    protected int qp_num;

    /** Parameters with every field 0 (no private data). */
    public RdmaConnParam() {
    }

    /**
     * Returns the native address of the private data ({@code rdma_conn_param.private_data}).
     *
     * @return the address, 0 for none
     */
    public long getPrivate_data() {
        return private_data_addr;
    }

    /**
     * Sets the native address of the private data; its length is {@link #setPrivate_data_len(byte)}'s. The address
     * is trusted unless it lies in a region registered through this module from a buffer (see the class comment):
     * connect and accept refuse unreadable memory with {@code IOException}, but cannot tell freed memory that is
     * still mapped from live memory.
     *
     * @param private_data the address, 0 for none
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setPrivate_data(long private_data) throws IOException {
        this.private_data_addr = private_data;
    }

    /**
     * Returns the length in bytes of the private data at {@link #getPrivate_data()} ({@code rdma_conn_param.private_data_len}), read as unsigned: at most 56 for a connect, 196 for an accept.
     *
     * @return the value
     */
    public byte getPrivate_data_len() {
        return private_data_len;
    }

    /**
     * Sets the length in bytes of the private data at {@link #getPrivate_data()} ({@code rdma_conn_param.private_data_len}), read as unsigned: at most 56 for a connect, 196 for an accept.
     *
     * @param private_data_len the value
     */
    public void setPrivate_data_len(byte private_data_len) {
        this.private_data_len = private_data_len;
    }

    /**
     * Returns the RDMA READ / atomic requests this side accepts ({@code rdma_conn_param.responder_resources}).
     *
     * @return the value
     */
    public byte getResponder_resources() {
        return responder_resources;
    }

    /**
     * Sets the RDMA READ / atomic requests this side accepts ({@code rdma_conn_param.responder_resources}).
     *
     * @param responder_resources the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setResponder_resources(byte responder_resources) throws IOException {
        this.responder_resources = responder_resources;
    }

    /**
     * Returns the RDMA READ / atomic requests this side issues at once ({@code rdma_conn_param.initiator_depth}).
     *
     * @return the value
     */
    public byte getInitiator_depth() {
        return initiator_depth;
    }

    /**
     * Sets the RDMA READ / atomic requests this side issues at once ({@code rdma_conn_param.initiator_depth}).
     *
     * @param initiator_depth the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setInitiator_depth(byte initiator_depth) throws IOException {
        this.initiator_depth = initiator_depth;
    }

    /**
     * Returns whether the hardware flow control is on ({@code rdma_conn_param.flow_control}).
     *
     * @return the value
     */
    public byte getFlow_control() {
        return flow_control;
    }

    /**
     * Sets whether the hardware flow control is on ({@code rdma_conn_param.flow_control}).
     *
     * @param flow_control the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setFlow_control(byte flow_control) throws IOException {
        this.flow_control = flow_control;
    }

    /**
     * Returns the transport retry count, 0 to 7 ({@code rdma_conn_param.retry_count}).
     *
     * @return the value
     */
    public byte getRetry_count() {
        return retry_count;
    }

    /**
     * Sets the transport retry count, 0 to 7 ({@code rdma_conn_param.retry_count}).
     *
     * @param retry_count the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setRetry_count(byte retry_count) throws IOException {
        this.retry_count = retry_count;
    }

    /**
     * Returns the RNR retry count, 0 to 7, 7 meaning forever ({@code rdma_conn_param.rnr_retry_count}).
     *
     * @return the value
     */
    public byte getRnr_retry_count() {
        return rnr_retry_count;
    }

    /**
     * Sets the RNR retry count, 0 to 7, 7 meaning forever ({@code rdma_conn_param.rnr_retry_count}).
     *
     * @param rnr_retry_count the value
     */
    public void setRnr_retry_count(byte rnr_retry_count) {
        this.rnr_retry_count = rnr_retry_count;
    }

    /**
     * Returns whether the queue pair uses a shared receive queue ({@code rdma_conn_param.srq}).
     *
     * @return the value
     */
    public byte getSrq() {
        return srq;
    }

    /**
     * Sets whether the queue pair uses a shared receive queue ({@code rdma_conn_param.srq}).
     *
     * @param srq the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setSrq(byte srq) throws IOException {
        this.srq = srq;
    }

    /**
     * Returns the queue pair number, for ids without a queue pair ({@code rdma_conn_param.qp_num}).
     *
     * @return the value
     */
    public int getQp_num() {
        return qp_num;
    }

    /**
     * Sets the queue pair number, for ids without a queue pair ({@code rdma_conn_param.qp_num}).
     *
     * @param qp_num the value
     * @throws IOException never; declared as in DiSNI 2.1
     */
    public void setQp_num(int qp_num) throws IOException {
        this.qp_num = qp_num;
    }
}
