package com.ibm.disni.verbs;

import java.io.IOException;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.verbs.SVCPostSend}: the stateful verb call that posts a
 * prepared list of send work requests ({@code IbvQP.postSend}), wrapping {@code ibv_post_send}. Executed
 * again, it posts the same requests again; the {@link SendWRMod}, {@link RdmaMod} and {@link SgeMod} views
 * change single fields of the prepared requests in place between executions (the pattern Crail, DaRPC and
 * jNVMf use: build once, then {@code getWrMod(0).getSgeMod(0).setLength(n); execute()}). An abstract class,
 * as in DiSNI 2.1 (compiled callers invoke it with {@code invokevirtual}).
 */
public abstract class SVCPostSend implements StatefulVerbCall<SVCPostSend> {

    /** For implementations. */
    public SVCPostSend() {
    }

    /**
     * Returns a view of prepared request {@code index}.
     *
     * @param index the request's position in the list the call was made from
     * @return the view, through which later executions see changes
     * @throws IOException if there is no such request
     */
    public abstract SendWRMod getWrMod(int index) throws IOException;

    /**
     * Stands in for DiSNI 2.1's {@code SVCPostSend.SendWRMod}: one prepared send request, whose identifier
     * and flags can be changed in place.
     */
    public interface SendWRMod {

        /**
         * Sets the identifier the completion will carry.
         *
         * @param wr_id the identifier
         */
        void setWr_id(long wr_id);

        /**
         * Sets the flags ({@code IbvSendWR.IBV_SEND_*}).
         *
         * @param send_flags the flags
         */
        void setSend_flags(int send_flags);

        /**
         * Returns the identifier.
         *
         * @return {@code wr_id}
         */
        long getWr_id();

        /**
         * Returns the number of scatter-gather entries.
         *
         * @return {@code num_sge}
         */
        int getNum_sge();

        /**
         * Returns the opcode ({@code IbvSendWR.IBV_WR_*}).
         *
         * @return {@code opcode}
         */
        int getOpcode();

        /**
         * Returns the flags.
         *
         * @return {@code send_flags}
         */
        int getSend_flags();

        /**
         * Returns the view of the request's RDMA part (remote address and key).
         *
         * @return the view
         */
        RdmaMod getRdmaMod();

        /**
         * Returns the view of scatter-gather entry {@code index}.
         *
         * @param index the entry's position
         * @return the view
         */
        SgeMod getSgeMod(int index);
    }

    /**
     * Stands in for DiSNI 2.1's {@code SVCPostSend.RdmaMod}: the RDMA part ({@code wr.rdma}) of one prepared
     * send request, changeable in place.
     */
    public interface RdmaMod {

        /**
         * Sets the remote address.
         *
         * @param remote_addr the address
         */
        void setRemote_addr(long remote_addr);

        /**
         * Returns the remote address.
         *
         * @return {@code wr.rdma.remote_addr}
         */
        long getRemote_addr();

        /**
         * Sets the remote key.
         *
         * @param rkey the key
         */
        void setRkey(int rkey);

        /**
         * Returns the remote key.
         *
         * @return {@code wr.rdma.rkey}
         */
        int getRkey();

        /**
         * Sets the reserved word.
         *
         * @param reserved the value
         */
        void setReserved(int reserved);

        /**
         * Returns the reserved word.
         *
         * @return the value
         */
        int getReserved();
    }

    /**
     * Stands in for DiSNI 2.1's {@code SVCPostSend.SgeMod}: one scatter-gather entry of a prepared send
     * request, changeable in place. The memory it names must be registered and stay alive until the request
     * has completed.
     */
    public interface SgeMod {

        /**
         * Sets the address of the first byte.
         *
         * @param addr the address
         */
        void setAddr(long addr);

        /**
         * Returns the address of the first byte.
         *
         * @return {@code addr}
         */
        long getAddr();

        /**
         * Sets the length.
         *
         * @param length bytes
         */
        void setLength(int length);

        /**
         * Returns the length.
         *
         * @return {@code length}
         */
        int getLength();

        /**
         * Sets the local key.
         *
         * @param lkey the key
         */
        void setLkey(int lkey);

        /**
         * Returns the local key.
         *
         * @return {@code lkey}
         */
        int getLkey();
    }
}
