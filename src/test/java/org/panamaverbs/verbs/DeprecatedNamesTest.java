package org.panamaverbs.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The names deprecated in 0.2.0 keep working until they go: {@link ConnectOptions} is {@link QpConnectOptions}
 * under its former name, value for value (the deprecated {@code WorkRequest.id} is covered with the encoding,
 * {@link WorkRequestEncodingTest}).
 */
@SuppressWarnings("deprecation")
class DeprecatedNamesTest {
    @Test
    void connectOptionsHoldsTheSameValuesAsQpConnectOptions() {
        assertSame(QpConnectOptions.defaults(), ConnectOptions.defaults().toQpConnectOptions());
        ConnectOptions old = ConnectOptions.builder().pathMtu(Mtu.MTU_1024).access(Access.LOCAL_WRITE, Access.REMOTE_READ)
                .minRnrTimer(3).timeout(18).retryCount(2).rnrRetry(5).maxReadAtomic(4).maxDestReadAtomic(6).hopLimit(64)
                .trafficClass(96).serviceLevel(2).build();
        QpConnectOptions current = QpConnectOptions.builder().pathMtu(Mtu.MTU_1024)
                .access(Access.LOCAL_WRITE, Access.REMOTE_READ).minRnrTimer(3).timeout(18).retryCount(2).rnrRetry(5)
                .maxReadAtomic(4).maxDestReadAtomic(6).hopLimit(64).trafficClass(96).serviceLevel(2).build();
        assertEquals(current, old.toQpConnectOptions());
        assertEquals(Mtu.MTU_1024, old.pathMtu());
        assertEquals(Access.bits(Access.LOCAL_WRITE, Access.REMOTE_READ), old.access());
        assertEquals(3, old.minRnrTimer());
        assertEquals(18, old.timeout());
        assertEquals(2, old.retryCount());
        assertEquals(5, old.rnrRetry());
        assertEquals(4, old.maxReadAtomic());
        assertEquals(6, old.maxDestReadAtomic());
        assertEquals(64, old.hopLimit());
        assertEquals(96, old.trafficClass());
        assertEquals(2, old.serviceLevel());
        assertEquals(current.toString(), old.toString());
        ConnectOptions changed = old.toBuilder().timeout(20).build();
        assertEquals(20, changed.timeout());
        assertEquals(18, old.timeout());
        assertNotEquals(old, changed);
        assertEquals(old, ConnectOptions.builder().pathMtu(Mtu.MTU_1024).access(Access.LOCAL_WRITE, Access.REMOTE_READ)
                .minRnrTimer(3).timeout(18).retryCount(2).rnrRetry(5).maxReadAtomic(4).maxDestReadAtomic(6).hopLimit(64)
                .trafficClass(96).serviceLevel(2).build());
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.builder().rnrRetry(8));
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.builder().pathMtu(Mtu.UNKNOWN));
    }
}
