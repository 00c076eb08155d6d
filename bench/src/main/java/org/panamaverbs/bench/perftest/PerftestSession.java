package org.panamaverbs.bench.perftest;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.panamaverbs.cm.ConnParam;
import org.panamaverbs.verbs.Access;
import org.panamaverbs.verbs.AddressHandle;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.QpConnectOptions;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.DeviceAttributes;
import org.panamaverbs.verbs.Gid;
import org.panamaverbs.verbs.Grh;
import org.panamaverbs.verbs.LinkLayer;
import org.panamaverbs.verbs.MemoryRegion;
import org.panamaverbs.verbs.Mtu;
import org.panamaverbs.verbs.PortAttributes;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.QpCapabilities;
import org.panamaverbs.verbs.QpConfig;
import org.panamaverbs.verbs.QpEndpoint;
import org.panamaverbs.verbs.QpType;
import org.panamaverbs.verbs.QueuePair;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.SendWorkRequest;
import org.panamaverbs.verbs.SharedReceiveQueue;
import org.panamaverbs.verbs.UnsupportedVerbException;

/**
 * One side of a perftest test over RC with the TCP exchange, set up in perftest's order ({@code main} of
 * {@code write_bw.c}): open the device, connect the socket, exchange versions, cycle buffer, cache line and MTU,
 * negotiate the parameters with perftest 26.01 and later, create the resources and print the banner, exchange
 * addresses, connect the queue pair, print both addresses between two more handshakes. What follows (the run, the
 * report exchange, "done") is the tool's. A {@code --connectionless} receiver has no peer: no socket, no exchange,
 * no handshake ({@link #wire} is null), its own cycle buffer, cache line and MTU.
 *
 * <p>The buffer is perftest's: {@code INC(max(size, cycle_buffer), cache_line)} bytes per slot, two slots per queue
 * pair ({@code -q}): the first half sent from (slot {@code i} for queue pair {@code i}), the second half offered to
 * the peer (slot {@code q + i}).
 */
final class PerftestSession implements AutoCloseable {
    /** perftest's page-size cycle buffer and cache line, before taking the peer's maximum. */
    static final int CYCLE_BUFFER = 4096;
    static final int CACHE_LINE = 64;

    final PerftestOptions options;
    final PrintStream out;
    final Context context;
    final PerftestWire wire;
    final int cycleBuffer;
    final int cacheLine;
    final Mtu pathMtu;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    /** The receive completion queue: {@link #cq} itself unless a SEND test. */
    final CompletionQueue recvCq;
    /** The receiving side's shared receive queue with {@code --use-srq}, or null. */
    final SharedReceiveQueue srq;
    /** The first queue pair: the only one unless {@code -q}. */
    final QueuePair qp;
    /** Every queue pair ({@code -q}), all on {@link #cq} and {@link #recvCq}. */
    final List<QueuePair> qps;
    /** The device the resources live on: {@link #context}, or with {@code -R} the one rdma_cm resolved to. */
    final Context resourceContext;
    /** With {@code -R}, the rdma_cm connection that owns {@link #qp}; null otherwise. */
    private RdmaCmLink cm;
    /** The first queue pair's buffer: with {@code --mr_per_qp} its own, else the one all queue pairs share. */
    final MemoryRegion buffer;
    /** Each queue pair's buffer ({@code --mr_per_qp}: a region each, as perftest's; else {@link #buffer} each). */
    final List<MemoryRegion> buffers;
    /** Where a buffer's second half, the part offered to the peer, starts. */
    final long half;
    /** One slot of the buffer. */
    final long slot;
    /** {@code --data_validation}'s buffer, which {@link #buffer} then is; null without it. */
    final ValidationLayout validation;
    /** This side's first address record; {@link #mines} has one per queue pair. */
    final PeerAddress mine;
    final List<PeerAddress> mines;
    /** The peer's record of each queue pair, once {@link #exchangeAddress()} ran. */
    final List<PeerAddress> peers = new ArrayList<>();
    /** The peer's address record, once {@link #exchangeAddress()} ran. */
    PeerAddress peer;
    /** The banner's facts as perftest's {@code --out_json} file has them ({@link PerftestJsonFile}). */
    String jsonTestInfo;
    /** What this side prints: the banner, the address lines, the tables' headers. */
    final SessionPrinter print;
    final boolean readTest;
    final boolean sendTest;
    /** An atomic test's type ({@link ParameterNegotiation#CMP_AND_SWAP} or {@code FETCH_AND_ADD}), or -1. */
    final int atomicType;
    /** {@code -c UD}: a UD queue pair, an address handle to the peer, receives with room for the GRH. */
    final boolean datagram;
    /** perftest's pause before a multicast sender's first datagram, for the switches to learn the join. */
    private static final long MULTICAST_JOIN_PAUSE_NANOS = 50_000_000;
    /** perftest's {@code DEF_QKEY}. */
    static final int QKEY = 0x11111111;
    private final int gidIndex;
    /** {@code -O}'s second port, whose queue pairs are the second half; null without it. */
    final DualPort dualPort;
    /** {@code --use_hugepages}' memory, detached once the regions are gone ({@link #close}). */
    private final List<MemorySegment> hugeMemory = new ArrayList<>();
    /** {@code --payload_file_path}'s pattern, or null. */
    private final byte[] payload;
    /** {@code --mmap}'s mappings, unmapped once the regions are gone ({@link #close}); null until the first. */
    private Arena mappedFiles;

    /** Whether the test posts receives: a SEND test, or WRITE with immediate ({@code --write_with_imm}). */
    boolean receives() {
        return sendTest || options.writeWithImm;
    }

    /** With {@code -c UD}: per queue pair, the address handle to the peer's queue pair of the same index. */
    private AddressHandle[] peerHandles;
    private final int access;

    /**
     * @param testTitle   the banner's test name, e.g. "RDMA_Write BW"
     * @param bandwidth   a bandwidth test (the banner shows the CQ moderation)
     * @param sendTest    a SEND test (the banner shows the receive depth on the receiving side)
     * @param messageSize the largest message of the run
     * @param iterations  {@code -n}, as the tool runs it (for the parameter negotiation)
     * @param txDepth     send queue depth
     * @param rxDepth     receive queue depth
     * @param readTest    a READ test: this side accepts the device's {@code max_qp_rd_atom} reads outstanding
     *                    (perftest's {@code out_reads}; 1 otherwise), and the banner and addresses show it
     * @param atomicType  an atomic test's type ({@link ParameterNegotiation#CMP_AND_SWAP} or {@code FETCH_AND_ADD}),
     *                    -1 for none: with {@code readTest}, verb ATOMIC in the negotiation, the address lines without
     *                    OUT, RKey and VAddr (perftest prints those for READ and WRITE only), and a device without
     *                    atomics refused before any peer waits
     * @param access      access flags of the buffer and the queue pair
     */
    PerftestSession(PerftestOptions options, String testTitle, boolean bandwidth, boolean sendTest,
            long messageSize, int iterations, int txDepth, int rxDepth, boolean readTest, int atomicType,
            PrintStream out, Access... access) {
        this.options = options;
        this.out = out;
        this.readTest = readTest;
        this.sendTest = sendTest;
        this.atomicType = atomicType;
        this.access = Access.bits(access);
        this.datagram = options.isUd();
        this.payload = options.payloadFile == null ? null : Payload.read(options.payloadFile, messageSize);
        this.context = options.device == null ? Rdma.openFirst() : Rdma.open(options.device);
        PerftestWire connected = null;
        try {
            if (atomicType >= 0) {
                AtomicTools.requireAtomics(context);
            }
            Access[] bufferAccess = !options.odp ? access : OnDemandPagingCheck.require(context, options,
                    atomicType >= 0 ? OnDemandPagingCheck.Verb.ATOMIC : readTest ? OnDemandPagingCheck.Verb.READ
                            : sendTest ? OnDemandPagingCheck.Verb.SEND : OnDemandPagingCheck.Verb.WRITE, access);
            PortAttributes port = DualPort.requireActive(context, options.ibPort);
            dualPort = DualPort.open(context, options);
            if (options.reportCounters != null) { // as perftest, before anything is exchanged
                options.counters = PortCounters.open(options.reportCounters, context.name(), options.ibPort);
            }
            if (messageSize > port.maxMessageSize()) {
                throw new PerftestException("-s " + messageSize + " is above the largest message port " + options.ibPort
                        + " of " + context.name() + " carries (" + port.maxMessageSize() + " bytes)");
            }
            DeviceAttributes attributes = context.attributes();
            // --data_validation's fetch-and-adds are reads too: the device's outstanding reads, as perftest 26.04's
            boolean reads = readTest || options.dataValidation;
            int outReads = reads ? outstandingReads(options.outs, Math.max(1, attributes.maxQpRdAtom()), out) : 1;
            int pkeyIndex = pkeyIndex(options.pkeyIndex, attributes.maxPkeys(), out);
            // -g without -x: GID index 0 (on RoCE the IPv6 link-local GID, the group's family), as perftest's parser
            // sets it; its tools then take their best GID instead, IPv4-mapped where there is one, and fail the GID-type
            // check against the group
            gidIndex = options.gidIndex >= 0 ? options.gidIndex
                    : options.multicast ? 0 : BestGid.index(context.gidTable(options.ibPort), options.ipv6);
            if (options.forceLink != null && PerftestOptions.linkLayerNamed(options.forceLink) != port.linkLayer()) {
                throw new PerftestException("--force-link " + options.forceLink + ": port " + options.ibPort + " of "
                        + context.name() + " is " + SessionPrinter.linkType(port) + ", and the Java tools take the link layer from"
                        + " the port");
            }
            if (options.multicast && port.linkLayer() == LinkLayer.INFINIBAND) {
                throw new PerftestException("-g on InfiniBand needs the subnet manager to create the group (perftest"
                        + " sends it an SA join through libibumad), which the Java tools do not send: use a RoCE port");
            }
            Gid gid = context.gid(options.ibPort, gidIndex); // refuses an index the port lacks, before any peer waits
            Mtu localMtu = port.activeMtu();
            if (options.mtu != null) {
                Mtu requested = mtuOf(options.mtu);
                localMtu = Mtu.min(requested, port.activeMtu());
            }
            // perftest's server says so, even the one that connects (--reversed), unless it has no peer
            if (!options.isClient() && !options.connectionless) {
                out.println();
                out.println("************************************");
                out.println("* Waiting for client to connect... *");
                out.println("************************************");
                out.flush();
            }
            Duration timeout = options.timeout();
            if (options.connectionless) {
                // --connectionless: a multicast receiver with no peer, so nothing is exchanged; this side's page,
                // cache line and MTU stand, as perftest's send_bw.c skips its exchanges
                this.wire = null;
                this.cycleBuffer = CYCLE_BUFFER;
                this.cacheLine = CACHE_LINE;
                this.pathMtu = localMtu;
            } else {
                if (options.connects()) {
                    connected = options.exchangesOverRdmaCm()
                            ? PerftestWire.connectRdmaCm(options.server, options.tcpPort, options.ipv6Address,
                                    options.sourceAddress(), CmIdTuning.of(options), options.timeout())
                            : PerftestWire.connect(options.server, options.tcpPort, options.ipv6Address,
                                    options.sourceAddress(), options.timeout());
                } else {
                    Duration wait = options.timeout().multipliedBy(10);
                    connected = options.exchangesOverRdmaCm()
                            ? PerftestWire.acceptRdmaCm(options.tcpPort, options.ipv6Address, CmIdTuning.of(options),
                                    wait)
                            : PerftestWire.accept(options.tcpPort, options.ipv6Address, wait);
                }
                this.wire = connected;
                wire.exchangeVersion(timeout);
                options.tablesSince2407 = wire.peerRelease().printsTablesOf2407(); // the table the peer's side prints
                if (options.dataValidation) {
                    requireValidatingPeer(wire.peerRelease());
                    wire.validating();
                }
                this.cycleBuffer = Math.max(CYCLE_BUFFER, wire.exchangeInt("cycle buffer", CYCLE_BUFFER, timeout));
                this.cacheLine = Math.max(CACHE_LINE, wire.exchangeInt("cache line size", CACHE_LINE, timeout));
                if (Integer.bitCount(cycleBuffer) != 1 || cycleBuffer > 1 << 30 || Integer.bitCount(cacheLine) != 1
                        || cacheLine > 4096) {
                    throw new PerftestException("the peer sent an implausible cycle buffer (" + cycleBuffer
                            + ") or cache line size (" + cacheLine + ")");
                }
                Mtu peerMtu = Mtu.of(wire.exchangeMtu(localMtu.code(), timeout));
                this.pathMtu = peerMtu.bytes() < localMtu.bytes() ? peerMtu : localMtu;
            }
            if (datagram && messageSize > pathMtu.bytes()) { // a datagram is one packet: perftest's check_mtu
                if (options.size != null && !options.allSizes) {
                    throw new PerftestException("Max message size in UD cannot be greater than MTU (-s " + messageSize
                            + ", path MTU " + pathMtu.bytes() + "; as perftest)");
                }
                System.err.println(" Max msg size in UD is MTU " + pathMtu.bytes()); // the default size, or -a's
                System.err.println(" Changing to this MTU");
            }
            if (wire != null) {
                // perftest 26.01 and later: what both sides run must agree; the peer's device may lower the reads
                ParameterNegotiation.Parameters mineNegotiated = negotiated(bandwidth, sendTest, readTest,
                        datagram ? Math.min(messageSize, pathMtu.bytes()) : messageSize, iterations, attributes);
                ParameterNegotiation.Parameters theirs = wire.negotiate(mineNegotiated, attributes,
                        options.negotiationSize, timeout);
                if (theirs != null) {
                    PerftestRelease release = wire.peerRelease();
                    ParameterNegotiation.check(mineNegotiated, theirs, release.negotiation(), release.describe());
                    outReads = ParameterNegotiation.outstandingReads(outReads, theirs, out);
                }
            }
            // -R: the queue pair is rdma_cm's, on the device rdma_cm resolves the address to; between two handshakes
            // of all-zero records, as create_rdma_cm_connection
            Context resources = context;
            if (options.rdmaCm) {
                if (!options.connects()) {
                    cm = RdmaCmLink.listen(options.tcpPort, CmIdTuning.of(options)); // before the handshake, after which a client connects
                }
                wire.handshake("handshake before the rdma_cm connection", PeerAddress.EMPTY, timeout);
                if (options.connects()) {
                    cm = RdmaCmLink.resolve(options.server, options.tcpPort, CmIdTuning.of(options));
                } else {
                    cm.awaitRequest(options.timeout().multipliedBy(10));
                }
                resources = cm.context();
            }
            resourceContext = resources;
            pd = resources.allocateProtectionDomain();
            // -e: each queue with a completion channel of its own, so each can be armed and awaited alone
            int queuePairs = options.queuePairCount();
            validation = options.dataValidation ? ValidationLayout.of(messageSize, txDepth, queuePairs, readTest) : null;
            // --data_validation: a fetch-and-add after each chunk beside the messages, in queues three times as deep
            int sendDepth = validation != null ? txDepth * 3 : txDepth;
            cq = resources.createCompletionQueue(sendDepth * queuePairs,
                    options.events ? resources.createCompletionChannel() : null, options.eventVector());
            // SEND tests (and WRITE with immediate) receive too: their completions on a queue of their own, as
            // perftest's recv_cq
            recvCq = receives() ? resources.createCompletionQueue(rxDepth * queuePairs,
                    options.events ? resources.createCompletionChannel() : null, options.eventVector()) : cq;
            // --use-srq: the receiving side's queue pairs draw from one shared queue of -r receives, as perftest's
            srq = sendTest && options.sharedReceiveQueue && (!options.isClient() || options.bidirectional || !bandwidth)
                    ? pd.createSharedReceiveQueue(rxDepth, 1) : null;
            QpConfig.Builder configured = QpConfig.builder(cq, recvCq).type(datagram ? QpType.UD : QpType.RC)
                    .capabilities(QpCapabilities.of(sendDepth, srq == null ? rxDepth : 0)
                            .withMaxInlineData(options.inlineSize()))
                    .srq(srq).pkeyIndex(cm == null ? pkeyIndex : 0);
            QpConfig config = configured.port(options.ibPort).gidIndex(gidIndex).build();
            List<QueuePair> created = new ArrayList<>();
            if (cm == null) {
                QpConfig second = dualPort == null ? config
                        : configured.port(dualPort.port()).gidIndex(dualPort.gidIndex()).build();
                for (int i = 0; i < queuePairs; i++) {
                    created.add(pd.createQueuePair(onSecondPort(i) ? second : config));
                }
            } else {
                // rdma_connect/rdma_accept with perftest's parameters: reads outstanding only for READ tests (and
                // --data_validation's fetch-and-adds), --retry_count retries, 7 after a receiver-not-ready
                int depth = reads ? outReads : 0;
                created.add(cm.connect(pd, config, new ConnParam(new byte[0], depth, depth, options.retryCount, 7),
                        timeout));
                wire.handshake("handshake after the rdma_cm connection", PeerAddress.EMPTY, timeout);
            }
            qps = List.copyOf(created);
            qp = qps.getFirst();
            if (options.multicastGroup != null) { // before the address exchange, as perftest's send_set_up_connection
                qp.attachMulticast(options.multicastGroup, 0); // LID 0: RoCE has no multicast LID
            }
            // a slot holds a message and a receive (longer with UD's GRH or an SRQ's whole MTUs; none with WRITE
            // with immediate, whose writes still land in the slot)
            slot = align(Math.max(Math.max(messageSize, receiveLength(messageSize)), cycleBuffer), cacheLine);
            // --mr_per_qp: each queue pair a region of two slots, sent from at its start and offered from the
            // second slot (perftest's buf[i] + BUFF_SIZE); else one region, slot i sent from, slot q + i offered
            int regions = options.mrPerQp ? queuePairs : 1;
            half = slot * (queuePairs / regions);
            List<MemoryRegion> registered = new ArrayList<>();
            for (int i = 0; i < regions; i++) {
                registered.add(allocateAndRegister(validation != null ? validation.totalSize() : half * 2, bufferAccess));
            }
            if (validation != null) {
                validation.initialize(registered.getFirst().segment());
                if (options.dataValidationDebug) {
                    out.println(validation.describe(txDepth));
                }
            }
            // --use-null-mr: requests carry the null region's key (over memory of the same size, which nothing
            // touches) and it is offered as the remote key, as perftest offers null_mr->lkey; the buffers stay registered
            MemoryRegion nullRegion = options.useNullMr ? nullRegion(half * 2) : null;
            buffer = nullRegion != null ? nullRegion : registered.getFirst();
            int lid = port.linkLayer() == LinkLayer.INFINIBAND ? port.lid() : 0;
            Gid localGid = cm == null ? gid : resources.gid(options.ibPort, gidIndex);
            List<PeerAddress> records = new ArrayList<>();
            List<MemoryRegion> each = new ArrayList<>();
            for (int i = 0; i < queuePairs; i++) {
                MemoryRegion mr = registered.get(i % regions);
                each.add(nullRegion != null ? nullRegion : mr);
                // a member of a group offers the group: the peer sends there, to the multicast QPN
                boolean member = options.multicastGroup != null;
                records.add(new PeerAddress(member ? 0 : onSecondPort(i) ? dualPort.lid() : lid, outReads,
                        member ? Multicast.GROUP_QPN : qps.get(i).qpNumber(), qps.get(i).psn(),
                        nullRegion != null ? nullRegion.lkey() : mr.rkey(),
                        validation != null ? mr.address() + validation.offeredOffset(i) : mr.address() + half + localSlot(i),
                        validation != null ? mr.address() + validation.markersOffset() : 0,
                        member ? options.multicastGroup : onSecondPort(i) ? dualPort.gid() : localGid, 0));
            }
            buffers = List.copyOf(each);
            mines = List.copyOf(records);
            mine = mines.getFirst();
            print = new SessionPrinter(this);
            print.banner(testTitle, bandwidth, port, gidIndex, txDepth, rxDepth);

        } catch (RuntimeException e) {
            if (connected != null) {
                connected.close();
            }
            if (cm != null) {
                cm.close();
            }
            context.close();
            if (mappedFiles != null) {
                mappedFiles.close();
            }
            throw e;
        }
    }

    /**
     * {@code --data_validation} needs a peer that speaks it: perftest 26.04 or later (an older one would take the
     * longer address records for garbage), or these tools.
     */
    private static void requireValidatingPeer(PerftestRelease peer) {
        if (!peer.hasTailMarkers()) {
            throw new PerftestException("--data_validation needs perftest 26.04 or later on both sides, and the peer runs "
                    + peer.describe() + ": run it without --data_validation, or upgrade it");
        }
    }

    /** {@code --use-null-mr}'s region, or perftest's refusal in its words where the device has none. */
    private MemoryRegion nullRegion(long size) {
        try {
            return pd.allocateNullRegion(size);
        } catch (UnsupportedVerbException e) {
            throw new PerftestException("Couldn't create null MR (--use-null-mr: " + e.getMessage() + ")");
        }
    }

    /**
     * A buffer of {@code size} zeroed bytes, registered: with {@code --use_hugepages} of hugepage-backed memory, with
     * {@code --mmap} the file's bytes (each region maps the same part of the file, as perftest's).
     */
    private MemoryRegion allocateAndRegister(long size, Access... access) {
        MemoryRegion mr = registered(size, access);
        if (payload != null) {
            Payload.fill(mr.segment(), payload);
        }
        return mr;
    }

    private MemoryRegion registered(long size, Access... access) {
        if (options.mmapFile != null) {
            if (mappedFiles == null) {
                mappedFiles = Arena.ofShared();
            }
            MemorySegment memory = MappedFile.map(options.mmapFile, options.mmapOffset, size, mappedFiles);
            out.println("allocated mmap buffer of size " + size + " at 0x" + Long.toHexString(memory.address()));
            return pd.register(mappedFiles, memory, access); // the arena's close deregisters, then unmaps
        }
        if (!options.useHugepages) {
            return pd.allocateAndRegister(size, access);
        }
        MemorySegment memory = HugePages.allocate(size);
        hugeMemory.add(memory);
        return pd.register(memory, access);
    }

    /** This side's negotiated parameters, as perftest fills them in from the same flags. */
    private ParameterNegotiation.Parameters negotiated(boolean bandwidth, boolean sendTest, boolean readTest,
            long size, int iterations, DeviceAttributes attributes) {
        boolean duration = options.duration != null;
        return new ParameterNegotiation.Parameters(
                options.runInfinitely ? ParameterNegotiation.RUN_INFINITELY
                        : options.allSizes ? ParameterNegotiation.RUN_ALL : ParameterNegotiation.RUN_REGULAR,
                datagram ? ParameterNegotiation.UD : ParameterNegotiation.RC,
                atomicType >= 0 ? ParameterNegotiation.ATOMIC : readTest ? ParameterNegotiation.READ
                        : sendTest ? (options.sendWithImm ? ParameterNegotiation.SEND_IMM : ParameterNegotiation.SEND)
                        : options.writeWithImm ? ParameterNegotiation.WRITE_IMM : ParameterNegotiation.WRITE,
                bandwidth ? ParameterNegotiation.BW : ParameterNegotiation.LAT, Math.max(0, atomicType),
                duration || options.runInfinitely ? ParameterNegotiation.DURATION : ParameterNegotiation.ITERATIONS,
                options.reportGbits ? ParameterNegotiation.GBS : ParameterNegotiation.MBS, size,
                duration ? 0 : iterations, 0, options.queuePairCount(),
                duration ? options.duration : ParameterNegotiation.DEFAULT_DURATION, options.exchangesOverRdmaCm() ? 1 : 0, 0, 0, 0,
                options.dataValidation ? 1 : 0, attributes.maxQpRdAtom());
    }

    /**
     * Exchanges address records, one handshake per queue pair (perftest's first {@code ctx_hand_shake}s), and
     * checks the GID types agree.
     */
    PeerAddress exchangeAddress() {
        for (PeerAddress each : mines) {
            peers.add(wire.handshake("address record", each, options.timeout()));
        }
        peer = peers.getFirst();
        if (cm == null && peer.ipv4Mapped() != mine.ipv4Mapped()) { // perftest skips the check with -R
            throw new PerftestException("found incompatibility issue with GID types: this side's GID " + mine.gid()
                    + " and the peer's " + peer.gid() + " are not both IPv4 or both IPv6; pick another -x");
        }
        return peer;
    }

    /** perftest's {@code ctx_connect} for RC: INIT, RTR to the peer's QPN and PSN, RTS; nothing with {@code -R}. */
    void connect() {
        if (cm != null) {
            return; // rdma_cm connected the queue pair
        }
        if (options.multicast) {
            LockSupport.parkNanos(MULTICAST_JOIN_PAUSE_NANOS); // an interrupt only shortens it
        }
        int[] labels = options.flowLabelList(); // parsed once for all queue pairs
        if (datagram) { // ctx_connect for UD: per queue pair INIT (with the Q_Key), RTR, RTS, and an address handle
            peerHandles = new AddressHandle[qps.size()];
            for (int i = 0; i < qps.size(); i++) {
                qps.get(i).readyForDatagrams(QKEY);
                if (options.connectionless) {
                    continue; // a receiver with no peer addresses no one
                }
                boolean second = onSecondPort(i);
                peerHandles[i] = pd.createAddressHandle(new AddressHandle.Target(peers.get(i).gid(),
                        second ? dualPort.gidIndex() : gidIndex, second ? dualPort.port() : options.ibPort,
                        destinationLid(peers.get(i)), 64, options.serviceLevel, options.trafficClass,
                        flowLabel(labels, i)));
            }
            return;
        }
        int initiatorDepth = Math.max(1, context.attributes().maxQpInitRdAtom());
        for (int i = 0; i < qps.size(); i++) {
            PeerAddress theirs = peers.get(i);
            qps.get(i).connect(new QpEndpoint(theirs.qpn(), theirs.psn(), destinationLid(theirs), theirs.gid()),
                    connectOptions(options, pathMtu, access, mine.outReads(), theirs.outReads(), initiatorDepth)
                            .toBuilder().flowLabel(flowLabel(labels, i)).build());
        }
    }

    /**
     * {@code report} with each port's share from what each queue pair's sample counted, with {@code --report-per-port};
     * else {@code report} itself.
     */
    BandwidthReport perPort(BandwidthReport report, long[] perQueuePair) {
        if (!options.reportPerPort) {
            return report;
        }
        long first = 0;
        long second = 0;
        for (int i = 0; i < perQueuePair.length; i++) {
            if (onSecondPort(i)) {
                second += perQueuePair[i];
            } else {
                first += perQueuePair[i];
            }
        }
        return report.withPorts(first, second);
    }

    /** Whether queue pair {@code i} runs on {@code -O}'s second port. */
    boolean onSecondPort(int i) {
        return dualPort != null && DualPort.onSecondPort(i, options.queuePairCount());
    }

    /** {@code --flow_label}'s label for queue pair {@code i}: perftest hands them out in turn; 0 without it. */
    private static int flowLabel(int[] labels, int i) {
        return labels.length == 0 ? 0 : labels[i % labels.length];
    }

    /** The LID to send to: {@code --dlid}'s when given (not 0), else the one the peer sent (0 on RoCE). */
    int destinationLid(PeerAddress peer) {
        return options.dlid != null && options.dlid != 0 ? options.dlid : peer.lid();
    }

    /** perftest's {@code ctx_chk_pkey_index}: an index past the device's {@code max_pkeys} becomes 0, with its lines. */
    static int pkeyIndex(int requested, int maxPkeys, PrintStream out) {
        if (requested > 0 && requested > maxPkeys - 1) {
            out.println(BandwidthReport.RESULT_LINE);
            out.flush();
            System.err.println(" Specified PKey Index, " + requested + ", greater than allowed max, " + (maxPkeys - 1));
            System.err.println(" Changing to 0");
            return 0;
        }
        return requested;
    }

    /**
     * perftest's {@code ctx_set_out_reads}: {@code -o}'s reads outstanding, the device's maximum when not given (or
     * not positive), and the maximum, with perftest's warning, when above it.
     */
    static int outstandingReads(int requested, int deviceMax, PrintStream out) {
        if (requested > deviceMax) {
            out.println(BandwidthReport.RESULT_LINE);
            System.err.println(" Number of outstanding reads is above max = " + deviceMax);
            System.err.println(" Changing to that max value");
            return deviceMax;
        }
        return requested <= 0 ? deviceMax : requested;
    }

    /**
     * perftest's RTR and RTS attributes of an RC queue pair ({@code ctx_modify_qp_to_rtr}, {@code _to_rts}): the
     * path MTU, {@code -S}'s service level and {@code --tclass}'s traffic class, reads outstanding both ways,
     * {@code -u}'s timeout, 7 retries (perftest's {@code --retry_count} reaches rdma_cm only).
     */
    static QpConnectOptions connectOptions(PerftestOptions options, Mtu pathMtu, int access, int myOutReads,
            int theirOutReads, int initiatorDepth) {
        return QpConnectOptions.builder().pathMtu(pathMtu).access(access).maxDestReadAtomic(myOutReads)
                .maxReadAtomic(Math.max(1, Math.min(theirOutReads, initiatorDepth))).timeout(options.qpTimeout)
                .retryCount(7).serviceLevel(options.serviceLevel).trafficClass(options.trafficClass).build();
    }

    /**
     * The middle of {@code write_bw.c}, {@code read_bw.c}, {@code write_lat.c} and {@code read_lat.c}: exchange
     * addresses, connect, print this side's address, a handshake and the peer's address, one more handshake.
     */
    void connectAndPrint() {
        exchangeAddress();
        connect();
        print.local();
        print.handshakeAndRemote();
        handshake("handshake after RTR");
    }

    /** The run's queue pairs, each sending from its own slot to the peer's slot for it. */
    List<RdmaRun.Lane> lanes() {
        List<RdmaRun.Lane> lanes = new ArrayList<>();
        for (int i = 0; i < qps.size(); i++) {
            lanes.add(new RdmaRun.Lane(qps.get(i), buffers.get(i), localSlot(i), peers.get(i).vaddr(),
                    peers.get(i).rkey()));
        }
        return lanes;
    }

    /**
     * Where queue pair {@code i}'s slot starts in its buffer's halves: slot {@code i} of the shared buffer, or the
     * start of its own with {@code --mr_per_qp}.
     */
    long localSlot(int i) {
        return options.mrPerQp ? 0 : i * slot;
    }

    /**
     * Where queue pair {@code i}'s receives land in {@link #buffers}' region: its slot of the second half, or with
     * {@code --mr_per_qp} the start of its own region, as perftest's {@code ctx_set_recv_wqes} puts them.
     */
    long receiveOffset(int i) {
        return options.mrPerQp ? 0 : half + i * slot;
    }

    /** Addresses a SEND to the peer: with {@code -c UD} its queue pair through the address handle; RC needs nothing. */
    void address(SendWorkRequest wr) {
        address(wr, 0);
    }

    /** {@link #address(SendWorkRequest)} for queue pair {@code lane}: it sends to the peer's queue pair of that index. */
    void address(SendWorkRequest wr, int lane) {
        if (datagram) {
            wr.ud(peerHandles[lane], peers.get(lane).qpn(), QKEY);
        }
    }

    /** A receive's length for messages of {@code size} bytes: UD receives start with the 40-byte GRH. */
    int receiveLength(long size) {
        if (options.writeWithImm) {
            return 0; // a WRITE with immediate places its data at the address it names: the receive takes none
        }
        long length = size + (datagram ? Grh.SIZE : 0);
        return (int) (srq == null ? length : align(length, pathMtu.bytes())); // perftest's SRQ receives: whole MTUs
    }

    /**
     * The message size of a run of {@code requested} bytes: over UD at most the path MTU, as perftest lowers its
     * default size there (a datagram is one packet; a larger {@code -s} was refused, {@code -a}'s sizes are cut by
     * {@link #allSizes}).
     */
    long runSize(long requested) {
        return datagram ? Math.min(requested, pathMtu.bytes()) : requested;
    }

    /** The sizes of {@code -a}: 2 to 2^23, with UD only those that fit the path MTU. */
    long[] allSizes() {
        long[] all = RdmaBandwidth.allSizes();
        return datagram ? java.util.Arrays.stream(all).filter(size -> size <= pathMtu.bytes()).toArray() : all;
    }

    /** One more {@code ctx_hand_shake}: the peers' barrier between phases. */
    void handshake(String what) {
        handshake(what, options.timeout());
    }

    void handshake(String what, Duration timeout) {
        wire.handshake(what, mine, timeout);
    }

    /** How long the side that waits for the other's run waits: ten times the step timeout. */
    Duration runTimeout() {
        return options.timeout().multipliedBy(10);
    }

    static Mtu mtuOf(int bytes) {
        for (Mtu m : Mtu.values()) {
            if (m != Mtu.UNKNOWN && m.bytes() == bytes) {
                return m;
            }
        }
        throw new PerftestException("-m must be 256, 512, 1024, 2048 or 4096, not " + bytes);
    }

    static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }

    /** The exchange runs over rdma_cm ({@code -R}, or perftest's rdma_cm exchange); false without a peer. */
    boolean exchangesOverRdmaCm() {
        return wire != null && wire.isRdmaCm();
    }

    @Override
    public void close() {
        if (wire != null) {
            wire.close();
        }
        if (cm != null) {
            cm.close(); // disconnects (bounded), frees the queue pair, the ids and what was created on rdma_cm's device
        }
        context.close();
        hugeMemory.forEach(HugePages::free); // the regions that held it are deregistered
        if (mappedFiles != null) {
            mappedFiles.close(); // unmaps --mmap's file, whose regions are deregistered too
        }
    }
}
