/**
 * java.nio.channels over rsockets: {@link org.panamaverbs.nio.RsocketSelectorProvider}, the provider an unchanged NIO
 * program picks up with {@code -Djava.nio.channels.spi.SelectorProvider=org.panamaverbs.nio.RsocketSelectorProvider},
 * whose socket channels speak librdmacm's rsocket protocol (the module {@code org.panamaverbs.rsocket}), so that C
 * programs under {@code librspreload.so} and the netty transport are their peers.
 */
module org.panamaverbs.nio {
    requires org.panamaverbs.rsocket;
    requires jdk.net;
    exports org.panamaverbs.nio;
}
