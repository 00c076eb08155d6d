package org.panamaverbs.bench;

import static org.panamaverbs.bench.CmScale.*;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Locale;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventHandler;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.VerbsException;

/** One thread: M connections opened at most K at a time, each message checked, held, then all closed. */
final class CmScaleClient extends CmScaleSide {
    private static final byte CONNECTING = 1;
    private static final byte LIVE = 2;
    private static final byte DISCONNECTING = 3;
    private static final byte ENDED = 4;

    private final InetSocketAddress destination;
    private final int pid = (int) ProcessHandle.current().pid();
    private final byte[] expected = new byte[SLOT];
    private int started;
    private int inFlight;
    private int live;
    private int established;
    private int resolved; // established or failed before it
    private int verified;
    private int wrong;
    private int disconnecting;
    private int disconnected;
    private int byServer;
    /** Connections whose message could not be sent: no echo will come. */
    private int unanswered;
    private int nextDisconnect;
    private boolean holding;
    private boolean stopping;
    private long setupEnd;
    private long firstEstablished;
    private long stopAt;

    CmScaleClient(CmScaleOptions options) throws UnknownHostException {
        super(options, "client " + ProcessHandle.current().pid(), options.count);
        destination = new InetSocketAddress(InetAddress.getByName(options.address), options.port);
    }

    int run() {
        runOnOwnChannel();
        long end = System.nanoTime();
        double setup = seconds(start, setupEnd == 0 ? end : setupEnd);
        double warm = firstEstablished == 0 ? 0 : seconds(firstEstablished, setupEnd == 0 ? end : setupEnd);
        say(String.format(Locale.ROOT, "%s: connections established %d of %d, messages verified %d (wrong %d),"
                + " failures %d %s, disconnected %d (by the server %d), closed %d, elapsed %.1f s, setup %.1f s,"
                + " %.1f connections/s (from the first established: %.1f s, %.1f connections/s), teardown %.1f s",
                name, established, capacity, verified, wrong, failures, failureSummary(), disconnected, byServer,
                closed, seconds(start, end), setup, established / setup, warm, warm == 0 ? 0 : (established - 1) / warm,
                stopAt == 0 ? 0 : seconds(stopAt, end)));
        return failures == 0 && wrong == 0 && verified == capacity ? 0 : 1;
    }

    @Override
    void loop(CmEventChannel channel) {
        say(name + ": opening " + capacity + " connections to " + destination + ", at most " + options.inFlight
                + " being set up at once, one thread");
        CmEventHandler handler = this::handle;
        long lastCheck = 0;
        while (true) {
            int work = open(channel);
            work += channel.poll(handler, 64) + pollCompletions();
            work += closeSome();
            if (!holding && resolved == capacity && verified + wrong + unanswered >= established) {
                holding = true;
                setupEnd = System.nanoTime();
                say(String.format(Locale.ROOT, "%s: holding %d connections (%d verified, %d failed) after %.1f s",
                        name, live, verified, failures, seconds(start, setupEnd)));
            }
            if (holding && !stopping && System.nanoTime() - lastCheck > 200_000_000L) {
                lastCheck = System.nanoTime();
                if (told()) {
                    stopping = true;
                    stopAt = System.nanoTime();
                    say(name + ": told to close; disconnecting " + live + " connections");
                }
            }
            if (!stopping && (pastDeadline() || (holding && live == 0))) {
                if (live > 0 || resolved < capacity) {
                    fail("bound", "not done within " + options.boundSeconds + " s: " + resolved + " of " + capacity
                            + " set up, " + live + " open");
                }
                stopping = true;
            }
            if (stopping) {
                work += disconnectSome();
                if (disconnecting == 0 && nextDisconnect == started && inFlight == 0 && toClose.isEmpty()) {
                    break;
                }
                if (System.nanoTime() - deadline > Duration.ofMinutes(10).toNanos()) {
                    fail("bound", disconnecting + " disconnects unanswered; closing the channel");
                    break;
                }
            }
            idle(work);
        }
    }

    /** Starts new connections while fewer than K are being set up. */
    private int open(CmEventChannel channel) {
        int n = 0;
        while (!stopping && started < capacity && inFlight < options.inFlight) {
            int slot = started++;
            CmId id = CmId.create(channel, PortSpace.TCP);
            ids[slot] = id;
            slots.put(id, slot);
            states[slot] = CONNECTING;
            inFlight++;
            try {
                id.beginResolveAddress(destination, RESOLVE);
            } catch (RuntimeException e) {
                setupFailed(slot, "rdma_resolve_addr " + e.getClass().getSimpleName(), e.getMessage());
            }
            n++;
        }
        return n;
    }

    private void handle(CmEventView event) {
        CmId id = event.id();
        Integer boxed = slots.get(id);
        if (boxed == null) {
            fail("event for an unknown id " + event.type().cName(), "status " + event.status());
            return;
        }
        int slot = boxed;
        if (states[slot] == ENDED) {
            if (event.type() != CmEventType.TIMEWAIT_EXIT && event.type() != CmEventType.DISCONNECTED) {
                fail(event.type().cName() + " on an ended connection", "status " + event.status());
            }
            return;
        }
        switch (event.type()) {
            case ADDR_RESOLVED -> step(slot, "rdma_resolve_route", () -> id.beginResolveRoute(RESOLVE));
            case ROUTE_RESOLVED -> step(slot, "rdma_connect", () -> {
                if (pd == null) {
                    prepareResources(id.context(), 2L * capacity * SLOT);
                }
                createQueuePair(id, slot);
                id.beginConnect(PARAMETERS);
            });
            case ESTABLISHED -> {
                if (firstEstablished == 0) {
                    firstEstablished = System.nanoTime();
                }
                inFlight--;
                resolved++;
                established++;
                live++;
                states[slot] = LIVE;
                if (established % 500 == 0) {
                    say(String.format(Locale.ROOT, "%s: %d established, %d verified, %d failed, %.1f s", name,
                            established, verified, failures, seconds(start, System.nanoTime())));
                }
                long offset = (long) (capacity + slot) * SLOT;
                message(pid, slot, expected);
                MemorySegment.copy(expected, 0, region.segment(), ValueLayout.JAVA_BYTE, offset, SLOT);
                try {
                    postSend(id, slot, offset, SLOT);
                } catch (RuntimeException e) {
                    unanswered++;
                    fail("ibv_post_send", e.getMessage());
                }
            }
            case DISCONNECTED -> {
                if (states[slot] == LIVE) { // the server ended it
                    byServer++;
                    live--;
                    try {
                        id.disconnect();
                    } catch (VerbsException e) {
                        fail("rdma_disconnect", e.getMessage());
                    }
                } else if (states[slot] == DISCONNECTING) {
                    disconnecting--;
                    live--;
                    if (event.status() != 0) {
                        fail("DISCONNECTED status " + event.status(), "connection " + slot);
                    }
                } else if (states[slot] == CONNECTING) {
                    setupFailed(slot, "DISCONNECTED while connecting", "status " + event.status());
                    return;
                }
                disconnected++;
                states[slot] = ENDED;
                enqueueClose(slot);
            }
            case TIMEWAIT_EXIT, ADDR_CHANGE -> { }
            default -> {
                if (states[slot] == CONNECTING) {
                    setupFailed(slot, event.type().cName(), "status " + event.status() + ", connection " + slot);
                } else {
                    fail(event.type().cName(), "status " + event.status() + ", connection " + slot);
                }
            }
        }
    }

    private void step(int slot, String call, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            setupFailed(slot, call + " " + e.getClass().getSimpleName(), e.getMessage());
        }
    }

    private void setupFailed(int slot, String kind, String detail) {
        fail(kind, detail);
        inFlight--;
        resolved++;
        states[slot] = ENDED;
        enqueueClose(slot);
    }

    @Override
    void completed(int slot, boolean send, int length) {
        if (send) {
            return; // our message is out; its echo is the receive
        }
        message(pid, slot, expected);
        String problem = length != SLOT ? "echo of " + length + " bytes" : null;
        MemorySegment got = region.segment().asSlice((long) slot * SLOT, SLOT);
        for (int i = 0; problem == null && i < SLOT; i++) {
            byte b = got.get(ValueLayout.JAVA_BYTE, i);
            if (b != expected[i]) {
                problem = "byte " + i + " is " + (b & 0xff) + ", expected " + (expected[i] & 0xff);
            }
        }
        if (problem == null) {
            verified++;
        } else {
            wrong++;
            fail("wrong echo", "connection " + slot + ": " + problem);
        }
    }

    @Override
    boolean isLive(int slot) {
        return states[slot] == LIVE || states[slot] == CONNECTING;
    }

    /** Disconnects while fewer than K disconnects are unanswered. */
    private int disconnectSome() {
        int n = 0;
        while (nextDisconnect < started && disconnecting < options.inFlight) {
            int slot = nextDisconnect++;
            if (states[slot] != LIVE) {
                continue; // failed, ended by the server, or (past the bound) never set up: closed with the channel
            }
            states[slot] = DISCONNECTING;
            disconnecting++;
            try {
                ids[slot].disconnect();
            } catch (VerbsException e) {
                fail("rdma_disconnect", e.getMessage());
                disconnecting--;
                live--;
                states[slot] = ENDED;
                enqueueClose(slot);
            }
            n++;
        }
        return n;
    }

    /** A file named by --hold exists, or a line arrived on stdin. */
    private boolean told() {
        if (options.file != null && Files.exists(options.file)) {
            return true;
        }
        try {
            return System.in.available() > 0 && System.in.read() >= 0;
        } catch (IOException e) {
            return false;
        }
    }
}
