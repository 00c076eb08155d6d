package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.internal.QpCreator;
import org.panamaverbs.internal.VerbsBridge;

/** The verbs side of {@link VerbsBridge}; registered by {@link Context}'s static initializer. */
final class VerbsBridgeImpl implements VerbsBridge {
    @Override
    public Context borrowContext(MemorySegment verbs, String owner) {
        return Context.borrow(verbs, owner);
    }

    @Override
    public QueuePair createHeldQueuePair(ProtectionDomain pd, QpConfig config, QpCreator creator, String owner,
            Runnable giveBack) {
        return pd.createQueuePair(config, creator, owner, giveBack);
    }

    @Override
    public void datagramsReady(QueuePair qp) {
        qp.datagramsReady();
    }

    @Override
    public void requireCreateEndpoint(Context context) {
        context.policy().requireCreateEndpoint();
    }

    @Override
    public Context adoptContext(MemorySegment context, RdmaDevice device, DeviceAttributes attributes, String owner,
            Runnable giveBack) {
        return Context.adopt(context, device, attributes, owner, giveBack);
    }

    @Override
    public ProtectionDomain adoptProtectionDomain(Context context, MemorySegment pd, String owner, Runnable giveBack) {
        return ProtectionDomain.adopt(context, pd, owner, giveBack);
    }

    @Override
    public CompletionQueue adoptCompletionQueue(Context context, MemorySegment cq, String owner, Runnable giveBack) {
        return CompletionQueue.adopt(context, cq, owner, giveBack);
    }

    @Override
    public QueuePair adoptQueuePair(ProtectionDomain pd, MemorySegment qp, QpConfig config,
            QpCapabilities capabilities, String owner, Runnable giveBack) {
        return QueuePair.adopt(pd, qp, config, capabilities, owner, giveBack);
    }

    @Override
    public MemoryRegion adoptMemoryRegion(ProtectionDomain pd, MemorySegment mr, MemorySegment memory, int access,
            String owner, Runnable giveBack) {
        return MemoryRegion.adopt(pd, mr, memory, access, owner, giveBack);
    }
}
