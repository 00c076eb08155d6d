package org.panamaverbs.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.panamaverbs.ffi.ibv_gid;
import org.panamaverbs.internal.CallState;
import org.panamaverbs.internal.NativeFunction;
import org.panamaverbs.internal.Unchecked;

/**
 * The multicast groups one UD queue pair is attached to ({@code ibv_attach_mcast} / {@code ibv_detach_mcast}). The
 * kernel refuses to destroy a queue pair that is still attached (EBUSY, and the queue pair leaks), so the queue
 * pair's free detaches what is left first ({@link #detachingBefore}).
 */
final class MulticastGroups {
    /** InfiniBand's multicast LIDs: from 0xC000, below the permissive LID 0xFFFF (the kernel's is_valid_mcast_lid). */
    private static final int FIRST_MULTICAST_LID = 0xc000;
    private static final int PERMISSIVE_LID = 0xffff;

    /** Guarded by the queue pair's tree lock; read without it only by the free, which runs after the last use. */
    private final Set<QueuePair.MulticastMembership> attached = new LinkedHashSet<>();

    private static final class Native {
        static final MethodHandle ATTACH = CallState.capturingErrno(NativeFunction.IBV_ATTACH_MCAST);
        static final MethodHandle DETACH = CallState.capturingErrno(NativeFunction.IBV_DETACH_MCAST);
    }

    void attach(QueuePair qp, Gid group, int lid) {
        QueuePair.MulticastMembership membership = checked(qp, group, lid, "ibv_attach_mcast");
        synchronized (qp.treeLock()) {
            qp.ensureOpen();
            qp.protectionDomain().context().policy().requireMulticast();
            checkLid(qp, lid);
            if (attached.contains(membership)) {
                return; // the kernel keeps one attachment per group and LID too
            }
            int errno = call(Native.ATTACH, qp.handleUnchecked(), group, lid);
            if (errno != 0) {
                throw new VerbsException("ibv_attach_mcast", errno, qp + " to group " + group + " LID " + lid
                        + (errno == Errno.ENOMEM ? " (the device's max_mcast_grp or max_mcast_qp_attach is reached)"
                                : ""));
            }
            attached.add(membership);
        }
    }

    void detach(QueuePair qp, Gid group, int lid) {
        QueuePair.MulticastMembership membership = checked(qp, group, lid, "ibv_detach_mcast");
        synchronized (qp.treeLock()) {
            qp.ensureOpen();
            if (!attached.contains(membership)) {
                throw new IllegalStateException(qp + " is not attached to group " + group + " LID " + lid
                        + " (attached: " + attached + ")");
            }
            int errno = call(Native.DETACH, qp.handleUnchecked(), group, lid);
            if (errno != 0) {
                throw new VerbsException("ibv_detach_mcast", errno, qp + " from group " + group + " LID " + lid);
            }
            attached.remove(membership);
        }
    }

    List<QueuePair.MulticastMembership> list(QueuePair qp) {
        synchronized (qp.treeLock()) {
            qp.ensureOpen();
            return List.copyOf(attached);
        }
    }

    /**
     * {@code free} (the queue pair's destroy, or its owner's) preceded by detaching every group still attached: a
     * function of {@code rawQp} and these groups only, as {@link VerbsResource#own} requires.
     */
    static Runnable detachingBefore(MulticastGroups groups, MemorySegment rawQp, String what, Runnable free) {
        return () -> {
            for (QueuePair.MulticastMembership m : new ArrayList<>(groups.attached)) {
                int errno = call(Native.DETACH, rawQp, m.group(), m.lid());
                if (errno != 0) {
                    throw new VerbsException("ibv_detach_mcast", errno, what + " from group " + m.group()
                            + " before its destroy (the queue pair stays allocated)");
                }
                groups.attached.remove(m);
            }
            free.run();
        };
    }

    private static QueuePair.MulticastMembership checked(QueuePair qp, Gid group, int lid, String verb) {
        if (group == null) {
            throw new NullPointerException(verb + ": group");
        }
        if (!group.isMulticast()) {
            throw new IllegalArgumentException(verb + ": " + group + " is not a multicast GID (ff00::/8, or"
                    + " ::ffff:224.0.0.0/4 on RoCE over IPv4)");
        }
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException(verb + ": LID " + lid + " is outside 0..0xffff");
        }
        if (qp.config().type() != QpType.UD) {
            throw new IllegalArgumentException(verb + ": " + qp + " is " + qp.config().type()
                    + "; only UD queue pairs join multicast groups");
        }
        return new QueuePair.MulticastMembership(group, lid);
    }

    /** On InfiniBand the group's LID is the subnet manager's multicast LID; RoCE ignores it. */
    private static void checkLid(QueuePair qp, int lid) {
        int port = qp.config().port();
        if (qp.protectionDomain().context().queryPort(port).linkLayer() == LinkLayer.INFINIBAND
                && (lid < FIRST_MULTICAST_LID || lid == PERMISSIVE_LID)) {
            throw new IllegalArgumentException("ibv_attach_mcast: LID 0x" + Integer.toHexString(lid) + " is not a"
                    + " multicast LID (0xc000..0xfffe) on InfiniBand port " + port + "; use the MLID the subnet"
                    + " manager gave the group");
        }
    }

    private static int call(MethodHandle verb, MemorySegment qp, Gid group, int lid) {
        try (Arena arena = Arena.ofConfined(); CallState state = CallState.open()) {
            MemorySegment gid = arena.allocate(ibv_gid.layout());
            group.write(gid, 0);
            int rc = (int) verb.invokeExact(state.segment(), qp, gid, (short) lid);
            // libibverbs returns the errno value; some providers return -1 with errno set
            return rc == 0 ? 0 : rc > 0 ? rc : state.errno();
        } catch (Throwable t) {
            throw Unchecked.rethrow(t);
        }
    }
}
