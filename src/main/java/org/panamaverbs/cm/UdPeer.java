package org.panamaverbs.cm;

import org.panamaverbs.verbs.AddressHandle;

/**
 * Where to send datagrams to a UD peer that rdma_cm resolved ({@code struct rdma_ud_param} of the
 * ESTABLISHED event): make an address handle from {@link #target()} and post with
 * {@code SendWorkRequest.ud(handle, qpNumber(), qkey())}.
 *
 * @param target   the address vector ({@code ah_attr})
 * @param qpNumber the peer's queue pair number
 * @param qkey     the peer's Q_Key (rdma_cm uses {@code RDMA_UDP_QKEY} 0x01234567)
 */
public record UdPeer(AddressHandle.Target target, int qpNumber, int qkey) {
}
