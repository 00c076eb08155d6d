package org.panamaverbs.netty;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link DeviceTest} class so marked runs on Netty's epoll loops ({@code EpollIoHandler}, netty-transport-native-epoll)
 * instead of {@link RdmaIoHandler} loops: the same tests on the other way of driving completions.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
@interface OnEpollLoops {
}
