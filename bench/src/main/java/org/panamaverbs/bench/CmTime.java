package org.panamaverbs.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.panamaverbs.cm.CmEventChannel;
import org.panamaverbs.cm.CmEventHandler;
import org.panamaverbs.cm.CmEventType;
import org.panamaverbs.cm.CmEventView;
import org.panamaverbs.cm.CmId;
import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.cm.PortSpace;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.VerbsResource;

/**
 * rdma-core's {@code cmtime} (rdmacm-utils) in Java: the time of each step of setting up and tearing down N rdma_cm
 * connections at once, with its options ({@code -s -b -c -p -r -t}) and its table, so that the two print side by
 * side and either side meets the other. The client runs each step for every connection before the next step, as
 * cmtime does; everything runs on one thread over a polled event channel (cmtime uses an event thread and the main
 * thread). Every queue pair of a device uses one protection domain and one completion queue, made with the first: what
 * cmtime does, deliberately in rdma-core's newest (one {@code ibv_create_cq} it shares) and in effect in older ones
 * such as 44, whose {@code rdma_create_qp} writes the completion queues it made for the first connection back into the
 * attributes that every later call is given. The server, like cmtime's, accepts until it is stopped, and destroys
 * each id on a thread of its own after answering its disconnect.
 */
final class CmTime {
    private static final String[] STEPS = {"create id", "bind addr", "resolve addr", "resolve route", "create qp",
        "connect", "disconnect", "destroy"};
    private static final int CREATE_ID = 0;
    private static final int BIND = 1;
    private static final int RESOLVE_ADDR = 2;
    private static final int RESOLVE_ROUTE = 3;
    private static final int CREATE_QP = 4;
    private static final int CONNECT = 5;
    private static final int DISCONNECT = 6;
    private static final int DESTROY = 7;
    /** How long the server's poll blocks before it looks again; events end the wait at once. */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(1);

    private String server;
    private String bind;
    private int connections = 100;
    private int port = 7471;
    private int retries = 2;
    private int timeoutMs = 2000;
    /** Java only: whole cycles run (and not shown) before the measured one, so that it measures a warm JVM. */
    private int warmups;

    /** One connection: its id and the start and end of each step (nanoTime, 0 = none). */
    private static final class Node {
        CmId id;
        final long[][] times = new long[STEPS.length][2];
        boolean error;
        int retriesLeft;
    }

    private final long[][] times = new long[STEPS.length][2];
    private final int[] started = new int[STEPS.length];
    private final int[] completed = new int[STEPS.length];
    private final Map<Context, DeviceObjects> devices = new HashMap<>();

    /** What every queue pair on a device shares: a protection domain and a completion queue nothing is ever posted to. */
    private record DeviceObjects(ProtectionDomain pd, CompletionQueue cq) implements AutoCloseable {
        static DeviceObjects of(Context context) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            try {
                return new DeviceObjects(pd, context.createCompletionQueue(1)); // cmtime's size: no request is posted
            } catch (RuntimeException e) {
                pd.close();
                throw e;
            }
        }

        @Override
        public void close() {
            VerbsResource.closeAll(cq, pd);
        }
    }

    private CmTime() {
    }

    static int run(String[] args) {
        CmTime tool = new CmTime();
        try {
            tool.parse(args);
        } catch (IllegalArgumentException e) {
            System.out.println("usage: cmtime\n\t[-s server_address]\n\t[-b bind_address]\n\t[-c connections]\n"
                    + "\t[-p port_number]\n\t[-r retries]\n\t[-t timeout_ms]\n\t[-w warm-up cycles (Java only)]");
            return 1;
        }
        try {
            return tool.server != null ? tool.client() : tool.serve();
        } catch (UnknownHostException e) {
            System.out.println("getaddrinfo error: " + e.getMessage());
            return 1;
        }
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(option);
            }
            String value = args[++i];
            switch (option) {
                case "-s" -> server = value;
                case "-b" -> bind = value;
                case "-c" -> connections = Integer.parseInt(value);
                case "-p" -> port = Integer.parseInt(value);
                case "-r" -> retries = Integer.parseInt(value);
                case "-t" -> timeoutMs = Integer.parseInt(value);
                case "-w" -> warmups = Integer.parseInt(value);
                default -> throw new IllegalArgumentException(option);
            }
        }
    }

    private int client() throws UnknownHostException {
        InetSocketAddress destination = new InetSocketAddress(InetAddress.getByName(server), port);
        InetSocketAddress source = bind == null ? null : new InetSocketAddress(InetAddress.getByName(bind), 0);
        Duration timeout = Duration.ofMillis(timeoutMs);
        ConnParam parameters = ConnParam.defaults().withRetries(Math.min(7, retries), 0);
        Node[] nodes = null;
        try (CmEventChannel channel = CmEventChannel.createPolled()) {
            for (int cycle = 0; cycle <= warmups; cycle++) {
                java.util.Arrays.fill(started, 0);
                java.util.Arrays.fill(completed, 0);
                nodes = cycle(channel, destination, source, timeout, parameters, cycle == warmups);
            }
        } finally {
            devices.values().forEach(DeviceObjects::close);
        }
        showPerf(nodes);
        return 0;
    }

    /** One whole cycle over N connections; {@code shown} says whether it prints its steps. */
    private Node[] cycle(CmEventChannel channel, InetSocketAddress destination, InetSocketAddress source, Duration timeout,
            ConnParam parameters, boolean shown) {
        java.io.PrintStream out = shown ? System.out : new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        Node[] nodes = new Node[connections];
        Map<CmId, Node> byId = new HashMap<>();
        {
            out.println("creating id");
            start(CREATE_ID);
            for (int i = 0; i < connections; i++) {
                Node n = nodes[i] = new Node();
                n.times[CREATE_ID][0] = System.nanoTime();
                n.id = CmId.create(channel, PortSpace.TCP);
                n.times[CREATE_ID][1] = System.nanoTime();
                byId.put(n.id, n);
            }
            end(CREATE_ID);
            CmEventHandler handler = event -> handle(event, byId.get(event.id()), destination, timeout);
            if (source != null) {
                out.println("binding source address");
                start(BIND);
                for (Node n : nodes) {
                    n.times[BIND][0] = System.nanoTime();
                    try {
                        n.id.bind(source);
                        n.times[BIND][1] = System.nanoTime();
                    } catch (RuntimeException e) {
                        System.out.println("failure bind addr: " + e.getMessage());
                        n.error = true;
                    }
                }
                end(BIND);
            }
            out.println("resolving address");
            step(RESOLVE_ADDR, nodes, n -> n.id.beginResolveAddress(destination, timeout), "failure getting addr",
                    channel, handler);
            out.println("resolving route");
            step(RESOLVE_ROUTE, nodes, n -> n.id.beginResolveRoute(timeout), "failure resolving route", channel, handler);
            out.println("creating qp");
            start(CREATE_QP);
            for (Node n : nodes) {
                if (n.error) {
                    continue;
                }
                n.times[CREATE_QP][0] = System.nanoTime();
                try {
                    createQueuePair(n.id);
                    n.times[CREATE_QP][1] = System.nanoTime();
                } catch (RuntimeException e) {
                    System.out.println("failure creating qp: " + e.getMessage());
                    n.error = true;
                }
            }
            end(CREATE_QP);
            out.println("connecting");
            step(CONNECT, nodes, n -> n.id.beginConnect(parameters), "failure rconnecting", channel, handler);
            out.println("disconnecting");
            step(DISCONNECT, nodes, n -> n.id.disconnect(), "failure disconnecting", channel, handler);
            out.println("destroying id");
            start(DESTROY);
            for (Node n : nodes) {
                n.times[DESTROY][0] = System.nanoTime();
                n.id.close(); // and its queue pair
                n.times[DESTROY][1] = System.nanoTime();
            }
            end(DESTROY);
        }
        return nodes;
    }

    /** Starts {@code step} on every connection without an error, then polls until each one's outcome arrived. */
    private void step(int step, Node[] nodes, java.util.function.Consumer<Node> begin, String failure,
            CmEventChannel channel, CmEventHandler handler) {
        start(step);
        for (Node n : nodes) {
            if (n.error) {
                continue;
            }
            n.retriesLeft = retries;
            n.times[step][0] = System.nanoTime();
            try {
                begin.accept(n);
                started[step]++;
            } catch (RuntimeException e) {
                System.out.println(failure + ": " + e.getMessage());
                n.error = true;
            }
        }
        while (completed[step] != started[step]) {
            if (channel.poll(handler, 64) == 0) {
                Thread.yield(); // as cmtime's main thread (sched_yield): a spin would keep the CPU from the kernel's work
            }
        }
        end(step);
    }

    private void handle(CmEventView event, Node n, InetSocketAddress destination, Duration timeout) {
        switch (event.type()) {
            case ADDR_RESOLVED -> done(n, RESOLVE_ADDR);
            case ROUTE_RESOLVED -> done(n, RESOLVE_ROUTE);
            case ESTABLISHED -> done(n, CONNECT);
            case DISCONNECTED -> done(n, DISCONNECT);
            case ADDR_ERROR -> {
                if (n.retriesLeft-- > 0 && retry(() -> n.id.beginResolveAddress(destination, timeout))) {
                    return;
                }
                System.out.println("RDMA_CM_EVENT_ADDR_ERROR, error: " + event.status());
                failed(n, RESOLVE_ADDR);
            }
            case ROUTE_ERROR -> {
                if (n.retriesLeft-- > 0 && retry(() -> n.id.beginResolveRoute(timeout))) {
                    return;
                }
                System.out.println("RDMA_CM_EVENT_ROUTE_ERROR, error: " + event.status());
                failed(n, RESOLVE_ROUTE);
            }
            case CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                System.out.println("event: " + event.type().cName() + ", error: " + event.status());
                failed(n, CONNECT);
            }
            default -> { } // as cmtime: DEVICE_REMOVAL and the rest are left to the teardown
        }
    }

    private static boolean retry(Runnable call) {
        try {
            call.run();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void done(Node n, int step) {
        n.times[step][1] = System.nanoTime();
        completed[step]++;
    }

    private void failed(Node n, int step) {
        done(n, step);
        n.error = true;
    }

    /** The queue pair of {@code rdma_create_qp(id, NULL, attr)} in cmtime: RC, one request each way, the device's queue. */
    private void createQueuePair(CmId id) {
        DeviceObjects shared = devices.computeIfAbsent(id.context(), DeviceObjects::of);
        id.createQueuePair(shared.pd(), QpConfig.builder(shared.cq(), shared.cq()).type(QpType.RC)
                .capabilities(QpCapabilities.of(1, 1)).build());
    }

    /**
     * cmtime's server: accepts every request (a queue pair as {@link #createQueuePair} makes it), answers each
     * disconnect and destroys the id on a thread of its own (a destroy may wait for the connection's teardown).
     * Runs until the process is stopped.
     */
    private int serve() throws UnknownHostException {
        InetSocketAddress local = new InetSocketAddress(bind == null ? InetAddress.getByName("0.0.0.0")
                : InetAddress.getByName(bind), port);
        try (CmEventChannel channel = CmEventChannel.createPolled();
                ExecutorService destroyer = Executors.newSingleThreadExecutor()) {
            CmId listener = CmId.create(channel, PortSpace.TCP);
            listener.bind(local);
            listener.listen(0);
            CmEventHandler handler = event -> {
                CmId id = event.id();
                if (event.type() == CmEventType.CONNECT_REQUEST) {
                    try {
                        createQueuePair(id);
                        id.accept(ConnParam.defaults());
                    } catch (RuntimeException e) {
                        System.out.println("failing connection request: " + e.getMessage());
                        id.reject(null);
                        id.close();
                    }
                } else if (event.type() == CmEventType.DISCONNECTED) {
                    id.disconnect();
                    destroyer.execute(id::close); // and its queue pair
                }
            };
            while (true) {
                channel.poll(handler, 64, IDLE_WAIT); // blocks as cmtime's event thread does in rdma_get_cm_event
            }
        }
    }

    private void start(int step) {
        times[step][0] = System.nanoTime();
    }

    private void end(int step) {
        times[step][1] = System.nanoTime();
    }

    private void showPerf(Node[] nodes) {
        System.out.println("step              total ms     max ms     min us  us / conn");
        for (int i = 0; i < STEPS.length; i++) {
            if (i == BIND && bind == null) {
                continue;
            }
            double max = 0;
            double min = 999999999.;
            for (Node n : nodes) {
                if (n.times[i][0] != 0 && n.times[i][1] != 0) {
                    double us = (n.times[i][1] - n.times[i][0]) / 1000.;
                    max = Math.max(max, us);
                    min = Math.min(min, us);
                }
            }
            double us = (times[i][1] - times[i][0]) / 1000.;
            System.out.println(String.format(Locale.ROOT, "%-13s: %11.2f%11.2f%11.2f%11.2f", STEPS[i], us / 1000.,
                    max / 1000., min, us / connections));
        }
    }
}
