package com.ibm.disni;

import com.ibm.disni.util.DiSNILogger;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The protection domains of the endpoint API: one per device, shared by every group of the JVM (so a region
 * registered on a server endpoint serves every endpoint it accepts, as in DiSNI). Unlike DiSNI 2.1 a domain
 * is deallocated when the last group that used it closes (deallocating closes the regions still on it); a
 * later group gets a new one.
 */
public class RdmaEndpointProvider {
    private static final Logger logger = DiSNILogger.getLogger();
    private static RdmaEndpointProvider provider;

    /**
     * The protection domain of each device, keyed by the device context's number ({@code IbvContext.getCmd_fd()}):
     * allocated on first use, replaced when found closed, deallocated when the last group using it is released.
     * Guarded by this object's monitor.
     */
    protected HashMap<Integer, IbvPd> pdMap;
    private final Map<Integer, Set<RdmaEndpointGroup<?>>> users = new HashMap<>();

    private RdmaEndpointProvider() throws IOException {
        this.pdMap = new HashMap<>();
    }

    /**
     * Returns the JVM's provider.
     *
     * @return the provider
     * @throws IOException never here; declared as in DiSNI
     */
    public static synchronized RdmaEndpointProvider getEndpointProvider() throws IOException {
        if (provider == null) {
            provider = new RdmaEndpointProvider();
        }
        return provider;
    }

    /**
     * Returns the domain of the endpoint's device, allocating it on first use.
     *
     * @param endpoint an endpoint whose id is bound to a device
     * @return the domain
     * @throws IOException if the id has no device or allocation fails
     */
    public synchronized IbvPd createProtectionDomain(RdmaEndpoint endpoint) throws IOException {
        return createProtectionDomain(context(endpoint.getIdPriv()), endpoint.group);
    }

    /**
     * Returns the domain of the server endpoint's device, allocating it on first use.
     *
     * @param endpoint a bound server endpoint
     * @return the domain
     * @throws IOException if the id has no device (bound to the wildcard address) or allocation fails
     */
    public synchronized IbvPd createProtectionDomain(RdmaServerEndpoint<?> endpoint) throws IOException {
        return createProtectionDomain(context(endpoint.getIdPriv()), endpoint.group());
    }

    /**
     * Returns the domain of {@code context}'s device, allocating it on first use.
     *
     * @param context the device
     * @return the domain
     * @throws IOException if allocation fails
     */
    public synchronized IbvPd createProtectionDomain(IbvContext context) throws IOException {
        return createProtectionDomain(context, null);
    }

    private IbvPd createProtectionDomain(IbvContext context, RdmaEndpointGroup<?> user) throws IOException {
        if (context == null) {
            throw new IOException("setting up protection domain, no context found");
        }
        int key = context.getCmd_fd();
        IbvPd pd = pdMap.get(key);
        if (pd == null || !pd.isOpen()) {
            pd = context.allocPd();
            pdMap.put(key, pd);
            logger.info("new protection domain for device {}", key);
        }
        if (user != null) {
            users.computeIfAbsent(key, k -> new HashSet<>()).add(user);
        }
        return pd;
    }

    private static IbvContext context(com.ibm.disni.verbs.RdmaCmId id) throws IOException {
        try {
            return id.getVerbs();
        } catch (IOException e) {
            throw new IOException("setting up protection domain, no context found", e);
        }
    }

    /** Forgets {@code group}; deallocates each domain no other group uses. */
    synchronized void release(RdmaEndpointGroup<?> group) {
        for (Iterator<Map.Entry<Integer, Set<RdmaEndpointGroup<?>>>> it = users.entrySet().iterator(); it.hasNext();) {
            Map.Entry<Integer, Set<RdmaEndpointGroup<?>>> entry = it.next();
            if (entry.getValue().remove(group) && entry.getValue().isEmpty()) {
                it.remove();
                IbvPd pd = pdMap.remove(entry.getKey());
                if (pd != null) {
                    try {
                        pd.deallocPd();
                    } catch (Exception e) {
                        logger.warn("deallocating protection domain: " + e, e);
                    }
                }
            }
        }
    }
}
