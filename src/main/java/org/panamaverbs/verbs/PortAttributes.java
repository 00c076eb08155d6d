package org.panamaverbs.verbs;

/**
 * {@code struct ibv_port_attr}, from {@code ibv_query_port}: the state and limits of one port.
 *
 * @param state           whether the port can carry traffic ({@link PortState#ACTIVE})
 * @param maxMtu          the largest MTU the port supports
 * @param activeMtu       the MTU in use; a queue pair's path MTU cannot exceed it
 * @param gidTableLength  the number of GID table slots
 * @param portCapFlags    {@code port_cap_flags}
 * @param maxMessageSize  the largest message a work request may carry
 * @param lid             the port's LID (InfiniBand; 0 on RoCE)
 * @param smLid           the subnet manager's LID
 * @param lmc             LID mask control
 * @param activeWidth     {@code active_width} as C encodes it
 * @param activeSpeed     {@code active_speed} as C encodes it
 * @param physicalState   {@code phys_state} as C encodes it (5 = LinkUp)
 * @param linkLayer       InfiniBand, or Ethernet for RoCE
 * @param pkeyTableLength the number of P_Key table slots
 */
public record PortAttributes(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int portCapFlags,
        long maxMessageSize,
        int lid,
        int smLid,
        int lmc,
        int activeWidth,
        int activeSpeed,
        int physicalState,
        LinkLayer linkLayer,
        int pkeyTableLength) {
}
