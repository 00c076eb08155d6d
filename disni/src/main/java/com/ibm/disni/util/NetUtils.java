package com.ibm.disni.util;

import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.NetUtils}: IPv4 addresses as ints and byte-order
 * conversions between this machine's order and network order (big-endian). Wraps no C call; the name
 * lookups use {@link InetAddress#getByName(String)}.
 *
 * <p>An IPv4 address as an int is its four bytes read big-endian: 10.0.0.1 is {@code 0x0A000001}.
 */
public class NetUtils {

    private static final boolean nativeIsNetwork = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;

    private NetUtils() {
    }

    /**
     * Resolves a host name or literal and returns its IPv4 address as an int.
     *
     * @param name a host name or IPv4 literal
     * @return the address, big-endian
     * @throws UnknownHostException if the name does not resolve, or resolves to an address that is not IPv4
     */
    public static int getIntIPFromName(String name) throws UnknownHostException {
        return getIntIPFromInetAddress(InetAddress.getByName(name));
    }

    /**
     * Returns an IPv4 address as an int.
     *
     * @param address an IPv4 address
     * @return the address, big-endian
     * @throws UnknownHostException if {@code address} is not IPv4
     */
    public static int getIntIPFromInetAddress(InetAddress address) throws UnknownHostException {
        if (!(address instanceof Inet4Address)) {
            throw new UnknownHostException("not an IPv4 address: " + address);
        }
        byte[] b = address.getAddress();
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    /**
     * Resolves a host name or literal and returns its IPv4 address as an int.
     *
     * @param name a host name or IPv4 literal
     * @return the address, big-endian
     * @throws UncheckedIOException wrapping the {@link UnknownHostException} when the name does not resolve
     *         to an IPv4 address (this overload declares no checked exception in DiSNI 2.1)
     */
    public static int getIntIPFromInetAddress(String name) {
        try {
            return getIntIPFromName(name);
        } catch (UnknownHostException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns the IPv4 address an int stands for.
     *
     * @param ip the address, big-endian
     * @return the address
     * @throws UnknownHostException never for four bytes; declared as in DiSNI 2.1
     */
    public static InetAddress getInetAddressFromIntIP(int ip) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                (byte) ip});
    }

    /**
     * Converts from this machine's byte order to network order.
     *
     * @param value the value in host order
     * @return the value in network order
     */
    public static short hostToNetworkByteOrder(short value) {
        return nativeIsNetwork ? value : Short.reverseBytes(value);
    }

    /**
     * Converts from this machine's byte order to network order.
     *
     * @param value the value in host order
     * @return the value in network order
     */
    public static char hostToNetworkByteOrder(char value) {
        return nativeIsNetwork ? value : Character.reverseBytes(value);
    }

    /**
     * Converts from this machine's byte order to network order.
     *
     * @param value the value in host order
     * @return the value in network order
     */
    public static int hostToNetworkByteOrder(int value) {
        return nativeIsNetwork ? value : Integer.reverseBytes(value);
    }

    /**
     * Converts from this machine's byte order to network order.
     *
     * @param value the value in host order
     * @return the value in network order
     */
    public static long hostToNetworkByteOrder(long value) {
        return nativeIsNetwork ? value : Long.reverseBytes(value);
    }

    /**
     * Converts from network order to this machine's byte order.
     *
     * @param value the value in network order
     * @return the value in host order
     */
    public static short networkToHostByteOrder(short value) {
        return hostToNetworkByteOrder(value);
    }

    /**
     * Converts from network order to this machine's byte order.
     *
     * @param value the value in network order
     * @return the value in host order
     */
    public static char networkToHostByteOrder(char value) {
        return hostToNetworkByteOrder(value);
    }

    /**
     * Converts from network order to this machine's byte order.
     *
     * @param value the value in network order
     * @return the value in host order
     */
    public static int networkToHostByteOrder(int value) {
        return hostToNetworkByteOrder(value);
    }

    /**
     * Converts from network order to this machine's byte order.
     *
     * @param value the value in network order
     * @return the value in host order
     */
    public static long networkToHostByteOrder(long value) {
        return hostToNetworkByteOrder(value);
    }
}
