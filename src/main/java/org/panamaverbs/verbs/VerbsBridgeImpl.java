package org.panamaverbs.verbs;

import java.lang.foreign.MemorySegment;

import org.panamaverbs.internal.QpCreator;
import org.panamaverbs.internal.VerbsBridge;

/** The verbs side of {@link VerbsBridge}; registered by {@link Context}'s static initializer. */
final class VerbsBridgeImpl implements VerbsBridge {
    @Override
    public Context borrowContext(MemorySegment verbs, String owner) {
        return ContextOpener.borrow(verbs, owner);
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
}
