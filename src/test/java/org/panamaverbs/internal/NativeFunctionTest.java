package org.panamaverbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.util.Locale;
import java.util.NoSuchElementException;

import org.junit.jupiter.api.Test;
import org.panamaverbs.ffi.ibverbs_h;
import org.panamaverbs.ffi.rdmacm.rdma_cma_h;

/**
 * Each {@link NativeFunction} against the generated bindings: the same C signature ({@code f$descriptor()}) and the
 * same address ({@code f$address()}), or the same absence, in the libraries this JVM loads.
 */
class NativeFunctionTest {
    @Test
    void everySignatureIsTheGeneratedOne() throws ReflectiveOperationException {
        for (NativeFunction function : NativeFunction.values()) {
            assertEquals(function.name(), function.symbol().toUpperCase(Locale.ROOT));
            assertEquals(generated(function, "$descriptor"), function.descriptor(), function.symbol());
        }
    }

    @Test
    void everyAddressIsTheGeneratedOne() throws ReflectiveOperationException {
        for (NativeFunction function : NativeFunction.values()) {
            Object address;
            try {
                address = generated(function, "$address");
            } catch (InvocationTargetException | ExceptionInInitializerError | NoClassDefFoundError absent) {
                assertThrows(NoSuchElementException.class, function::address, function.symbol());
                continue;
            }
            assertEquals(((MemorySegment) address).address(), function.address().address(), function.symbol());
        }
    }

    private static Object generated(NativeFunction function, String suffix) throws ReflectiveOperationException {
        Class<?> bindings = function.name().startsWith("IBV_") ? ibverbs_h.class : rdma_cma_h.class;
        return bindings.getMethod(function.symbol() + suffix).invoke(null);
    }
}
