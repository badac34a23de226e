package io.sluice.redisson;

import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.DefaultAddressResolverGroup;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import org.redisson.connection.AddressResolverGroupFactory;

import java.net.InetSocketAddress;

/**
 * Resolves Redis host names with the JDK ({@code InetAddress}, its cache and the system's resolver) instead of
 * Netty's DNS client, Redisson's default. Netty's client binds a UDP socket on the wildcard address for each
 * of Redisson's event loops as soon as the client starts, even when every address is an IP literal; an
 * application server then holds several such sockets for each Sluice application. Sluice's own clients
 * ({@code sluice.redis.address}) use this factory; a Redisson YAML file ({@code sluice.redis.config}) may name it:
 * {@code addressResolverGroupFactory: !<io.sluice.redisson.JdkAddressResolverFactory> {}}.
 *
 * <p>The trade-off: a lookup of a host name that is not cached blocks a Redisson I/O thread while the system
 * resolves it, which is what every JDK client does; IP addresses are never looked up.
 */
public class JdkAddressResolverFactory implements AddressResolverGroupFactory {
    @Override
    public AddressResolverGroup<InetSocketAddress> create(Class<? extends DatagramChannel> channelType,
                                                          Class<? extends SocketChannel> socketChannelType,
                                                          DnsServerAddressStreamProvider nameServerProvider) {
        return DefaultAddressResolverGroup.INSTANCE;
    }
}
