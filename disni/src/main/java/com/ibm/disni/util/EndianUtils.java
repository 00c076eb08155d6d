package com.ibm.disni.util;

/**
 * Stands in for DiSNI 2.1's {@code com.ibm.disni.util.EndianUtils}: unconditional byte swaps. Wraps no C
 * call, never throws, holds no memory.
 */
public class EndianUtils {

    /** DiSNI 2.1 has this public constructor; every method is static. */
    public EndianUtils() {
    }

    /**
     * Reverses the two bytes of a short.
     *
     * @param value the value
     * @return the value with its bytes in the opposite order
     */
    public static short swap(short value) {
        return Short.reverseBytes(value);
    }

    /**
     * Reverses the two bytes of a char.
     *
     * @param value the value
     * @return the value with its bytes in the opposite order
     */
    public static char swap(char value) {
        return Character.reverseBytes(value);
    }

    /**
     * Reverses the four bytes of an int.
     *
     * @param value the value
     * @return the value with its bytes in the opposite order
     */
    public static int swap(int value) {
        return Integer.reverseBytes(value);
    }

    /**
     * Reverses the eight bytes of a long.
     *
     * @param value the value
     * @return the value with its bytes in the opposite order
     */
    public static long swap(long value) {
        return Long.reverseBytes(value);
    }
}
