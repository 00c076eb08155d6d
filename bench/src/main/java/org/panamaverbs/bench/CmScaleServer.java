package org.panamaverbs.bench;

import static org.panamaverbs.bench.CmScale.*;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventHandler;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.VerbsException;

/** One thread: the listener, every connection's events, every completion, every echo. */
final class CmScaleServer extends CmScaleSide {
    private static final byte ACCEPTING = 1;
    private static final byte LIVE = 2;
    private static final byte ENDED = 3;

    private final InetSocketAddress local;
    private int next;
    private int accepting;
    private int live;
    private int peak;
    private int established;
    private int checked;
    private int echoed;
    private int bad;
    private int disconnected;
    private int reported;
    private long firstRequest;
    private long lastEstablished;
    private long firstDisconnect;
    private long lastClose;
    private CmId listener;

    CmScaleServer(CmScaleOptions options) throws UnknownHostException {
        super(options, "server", options.count);
        local = new InetSocketAddress(InetAddress.getByName(options.address == null ? "0.0.0.0" : options.address),
                options.port);
    }

    int run() {
        runOnOwnChannel();
        long end = System.nanoTime();
        double setup = established == 0 ? 0 : seconds(firstRequest, lastEstablished);
        report(0, "end");
        say(String.format(Locale.ROOT, "server: connections established %d (at most %d at once), messages verified %d"
                + " (echoed %d, wrong %d), failures %d %s, disconnected %d, closed %d, elapsed %.1f s, setup %.1f s,"
                + " %.1f connections/s, teardown %.1f s (first disconnect to last close)", established, peak, checked,
                echoed, bad, failures, failureSummary(), disconnected, closed, seconds(start, end), setup,
                setup == 0 ? 0 : established / setup, firstDisconnect == 0 ? 0 : seconds(firstDisconnect, lastClose)));
        return failures == 0 && bad == 0 ? 0 : 1;
    }

    @Override
    void loop(CmEventChannel channel) {
        listener = CmId.create(channel, PortSpace.TCP);
        listener.bind(local);
        listener.listen(0); // 0: the kernel's maximum, net.rdma_ucm.max_backlog
        say("server: listening on " + listener.localAddress() + ", backlog " + maxBacklog()
                + " (net.rdma_ucm.max_backlog), capacity " + capacity + " connections, one thread");
        report(0, "start");
        CmEventHandler handler = this::handle;
        while (true) {
            int work = channel.poll(handler, 64) + pollCompletions();
            int closes = closeSome();
            if (closes > 0) {
                lastClose = System.nanoTime();
            }
            work += closes;
            boolean stop = next >= capacity || (options.file != null && Files.exists(options.file));
            if (stop && live == 0 && accepting == 0 && toClose.isEmpty() && closed == next) {
                break;
            }
            if (pastDeadline()) {
                fail("bound", "not done within " + options.boundSeconds + " s: " + live + " connections still open, "
                        + accepting + " being accepted; closing everything");
                break;
            }
            idle(work);
        }
    }

    private void handle(CmEventView event) {
        CmId id = event.id();
        if (id == listener) {
            fail("listener " + event.type().cName(), "status " + event.status());
            return;
        }
        if (event.type() == CmEventType.CONNECT_REQUEST) {
            request(id);
            return;
        }
        Integer boxed = slots.get(id);
        if (boxed == null || states[boxed] == ENDED) {
            if (event.type() != CmEventType.TIMEWAIT_EXIT && event.type() != CmEventType.DISCONNECTED) {
                fail(event.type().cName() + " on an ended connection", "status " + event.status());
            }
            return;
        }
        int slot = boxed;
        switch (event.type()) {
            case ESTABLISHED -> {
                states[slot] = LIVE;
                accepting--;
                live++;
                established++;
                peak = Math.max(peak, live);
                lastEstablished = System.nanoTime();
                if (live > reported && (live == 10 || live == 100 || live % 1000 == 0 || live == capacity)) {
                    reported = live;
                    report(live, null);
                }
            }
            case DISCONNECTED -> {
                if (firstDisconnect == 0) {
                    firstDisconnect = System.nanoTime();
                }
                if (states[slot] == LIVE) {
                    live--;
                    disconnected++;
                } else if (states[slot] == ACCEPTING) {
                    accepting--;
                    fail("DISCONNECTED before ESTABLISHED", "status " + event.status());
                }
                states[slot] = ENDED;
                try {
                    id.disconnect(); // answers the client's request now; the close comes when the loop has time
                } catch (VerbsException e) {
                    fail("rdma_disconnect", e.getMessage());
                }
                enqueueClose(slot);
            }
            case TIMEWAIT_EXIT, ADDR_CHANGE -> { } // nothing to do: the id is closed or about to be
            default -> {
                fail(event.type().cName(), "status " + event.status() + ", connection " + slot);
                if (states[slot] == ACCEPTING) {
                    accepting--;
                } else if (states[slot] == LIVE) {
                    live--;
                }
                states[slot] = ENDED;
                enqueueClose(slot);
            }
        }
    }

    private void request(CmId id) {
        if (firstRequest == 0) {
            firstRequest = System.nanoTime();
        }
        if (next >= capacity) {
            fail("over capacity", "rejected a request beyond " + capacity + " connections");
            try {
                id.reject(null);
            } finally {
                id.close();
            }
            return;
        }
        int slot = next++;
        ids[slot] = id;
        slots.put(id, slot);
        states[slot] = ACCEPTING;
        accepting++;
        try {
            if (pd == null) {
                prepareResources(id.context(), (long) capacity * SLOT);
            }
            createQueuePair(id, slot);
            id.accept(PARAMETERS);
        } catch (RuntimeException e) {
            fail("accept " + e.getClass().getSimpleName(), e.getMessage());
            accepting--;
            states[slot] = ENDED;
            try {
                id.reject(null);
            } catch (RuntimeException ignored) {
                // the request may be gone already; the id is closed regardless
            }
            enqueueClose(slot);
        }
    }

    @Override
    void completed(int slot, boolean send, int length) {
        CmId id = ids[slot];
        if (send) {
            echoed++;
            if (states[slot] == LIVE) {
                postRecv(id, slot); // the slot is free again: ready for the next message
            }
            return;
        }
        long offset = (long) slot * SLOT;
        String problem = check(region.segment(), offset, length);
        if (problem == null) {
            checked++;
        } else {
            bad++;
            fail("wrong message", "connection " + slot + ": " + problem);
        }
        if (states[slot] == LIVE || states[slot] == ACCEPTING) {
            postSend(id, slot, offset, length); // the echo, from the receive slot itself
        }
    }

    @Override
    boolean isLive(int slot) {
        return states[slot] == LIVE || states[slot] == ACCEPTING;
    }

    /** The milestone line: connections, threads (platform and virtual, from a thread dump), heap. */
    private void report(int connections, String when) {
        System.gc(); // the heap that stays: what the connections hold, not garbage
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        List<String> names = new ArrayList<>();
        int[] threads = threadCounts(names);
        say(String.format(Locale.ROOT, "connections %d threads %d (platform %d, virtual %d) heap %d MB%s"
                + " os-threads %d elapsed %.1f s", connections, threads[0], threads[0] - threads[1], threads[1],
                Math.round(heap / 1048576.0), when == null ? "" : " [" + when + "]", osThreads(),
                seconds(start, System.nanoTime())));
        if (when != null || connections == capacity) {
            say("server: the threads at " + connections + " connections: " + String.join(", ", names));
        }
    }

    private static int maxBacklog() {
        try {
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/rdma_ucm/max_backlog")).getFirst().trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
