package org.panamaverbs.nio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Selector} over the provider's channels, as C's {@code rpoll} selects rsockets: a selection first looks at
 * what each registered channel has (its completions polled, its rdma_cm events handled), and returns at once when a
 * key is ready; else it arms the channels' completion queues, looks once more, and waits in {@code poll} on their
 * completion channels, their rdma_cm event channels and its own eventfd, which {@link #wakeup()} and the channels'
 * own threads (a listener accepting, an event read for another channel) write to. Channels of other providers are
 * refused ({@link IllegalSelectorException}).
 */
final class RsocketSelector extends AbstractSelector {
    private final Set<SelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final Set<SelectionKey> selected = new HashSet<>();
    private final Set<SelectionKey> publicSelected = new Ungrowable(selected);
    private final WakeupFd wakeFd;
    /** The {@code struct pollfd}s of a selection, grown as keys come; freed with the selector (automatic arena). */
    private MemorySegment pollFds;
    private int[] fds = new int[16];
    private short[] events = new short[16];

    RsocketSelector(SelectorProvider provider) throws IOException {
        super(provider);
        wakeFd = new WakeupFd();
        pollFds = Arena.ofAuto().allocate(16 * NativeDescriptors.POLLFD_BYTES, 8);
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel channel, int ops, Object attachment) {
        if (!(channel instanceof RsocketSelectable selectable) || channel.provider() != provider()) {
            throw new IllegalSelectorException();
        }
        RsocketSelectionKey key = new RsocketSelectionKey(channel, this);
        key.attach(attachment);
        key.interestOps(ops);
        keys.add(key);
        selectable.selectorAdded(this);
        return key;
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return publicSelected;
    }

    @Override
    public int selectNow() throws IOException {
        return select(0, false);
    }

    @Override
    public int select(long timeout) throws IOException {
        if (timeout < 0) {
            throw new IllegalArgumentException("Negative timeout");
        }
        return select(timeout == 0 ? -1 : timeout, true);
    }

    @Override
    public int select() throws IOException {
        return select(-1, true);
    }

    /** A selection: {@code timeoutMillis} -1 waits until a key is ready, a wake-up or an interrupt; 0 does not wait. */
    private int select(long timeoutMillis, boolean wait) throws IOException {
        ensureOpen();
        synchronized (this) {
            synchronized (publicSelected) {
                long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000 : 0;
                for (;;) {
                    processCancelled();
                    int updated = collect();
                    if (updated > 0 || !wait) {
                        drainWakeups();
                        return updated;
                    }
                    for (SelectionKey key : keys) {
                        if (key.isValid()) {
                            ((RsocketSelectionKey) key).selectable().arm();
                        }
                    }
                    updated = collect();
                    if (updated > 0) {
                        return updated;
                    }
                    int millis = -1;
                    if (timeoutMillis > 0) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return 0;
                        }
                        millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, left / 1_000_000));
                    }
                    boolean wokenUp;
                    try {
                        begin(); // an interrupt wakes the selection up, as wakeup() does
                        int count = fillPollFds();
                        NativeDescriptors.poll(pollFds, count, millis);
                        wokenUp = NativeDescriptors.ready(pollFds, 0);
                    } finally {
                        end();
                    }
                    if (wokenUp) {
                        drainWakeups();
                    }
                    if (!isOpen()) {
                        throw new ClosedSelectorException();
                    }
                    if (wokenUp || Thread.currentThread().isInterrupted()) {
                        processCancelled();
                        return collect();
                    }
                }
            }
        }
    }

    /** Updates the ready sets of the keys whose channels are ready for what they are interested in. */
    private int collect() {
        int updated = 0;
        for (SelectionKey k : keys) {
            RsocketSelectionKey key = (RsocketSelectionKey) k;
            int interest = key.interest();
            if (!key.isValid() || interest == 0) {
                continue;
            }
            int ready;
            try {
                ready = key.selectable().readyOps() & interest;
            } catch (RuntimeException e) {
                ready = interest; // the channel's next operation throws what went wrong
            }
            if (ready == 0) {
                continue;
            }
            if (selected.contains(key)) {
                int before = key.readyOps();
                if ((before | ready) != before) {
                    key.readyOps(before | ready);
                    updated++;
                }
            } else {
                key.readyOps(ready);
                selected.add(key);
                updated++;
            }
        }
        return updated;
    }

    /** The eventfd first, then each interested channel's descriptors. */
    private int fillPollFds() {
        int count = 0;
        fds[count] = wakeFd.fd();
        events[count++] = NativeDescriptors.POLLIN;
        for (SelectionKey k : keys) {
            RsocketSelectionKey key = (RsocketSelectionKey) k;
            if (key.isValid() && key.interest() != 0) {
                if (fds.length < count + 2) {
                    fds = java.util.Arrays.copyOf(fds, fds.length * 2);
                    events = java.util.Arrays.copyOf(events, fds.length);
                }
                count += key.selectable().descriptors(key.interest(), fds, events, count);
            }
        }
        if (pollFds.byteSize() < count * NativeDescriptors.POLLFD_BYTES) {
            pollFds = Arena.ofAuto().allocate(fds.length * NativeDescriptors.POLLFD_BYTES, 8);
        }
        for (int i = 0; i < count; i++) {
            NativeDescriptors.watch(pollFds, i, fds[i], events[i]);
        }
        return count;
    }

    private void processCancelled() {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            for (Iterator<SelectionKey> it = cancelled.iterator(); it.hasNext(); ) {
                RsocketSelectionKey key = (RsocketSelectionKey) it.next();
                it.remove();
                keys.remove(key);
                selected.remove(key);
                deregister(key);
                key.selectable().selectorRemoved(this);
            }
        }
    }

    private void drainWakeups() {
        wakeFd.drain();
    }

    @Override
    public Selector wakeup() {
        wakeFd.signal();
        return this;
    }

    @Override
    protected void implCloseSelector() {
        wakeup();
        synchronized (this) {
            synchronized (publicSelected) {
                for (SelectionKey key : keys) {
                    key.cancel();
                }
                processCancelled();
                wakeFd.close(false); // no selection runs: this thread holds the selector
            }
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }

    /** The selected-key set as the JDK hands it out: keys may be removed from it, never added. */
    private static final class Ungrowable extends AbstractSet<SelectionKey> {
        private final Set<SelectionKey> set;

        Ungrowable(Set<SelectionKey> set) {
            this.set = set;
        }

        @Override
        public Iterator<SelectionKey> iterator() {
            return set.iterator();
        }

        @Override
        public int size() {
            return set.size();
        }

        @Override
        public boolean contains(Object o) {
            return set.contains(o);
        }

        @Override
        public boolean remove(Object o) {
            return set.remove(o);
        }

        @Override
        public void clear() {
            set.clear();
        }

        @Override
        public boolean add(SelectionKey key) {
            throw new UnsupportedOperationException("keys are added to the selected-key set by selection only");
        }
    }
}
