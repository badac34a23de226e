package io.sluice.redisson;

import io.sluice.rule.RuleParser;
import io.sluice.rule.Settings;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sluice's own Redis clients resolve addresses with the JDK, not Netty's DNS client, which binds a UDP socket
 * on the wildcard address per event loop (the application-server tests count those sockets).
 */
class AddressResolverTest {
    @Test
    void clientsForAnAddressUseTheJdkResolver() {
        Settings settings = RuleParser.parse(Map.of("sluice.redis.address", TestRedis.address(),
                "sluice.backend-timeout", "5s")).settings();
        RedissonClient client = RedissonClients.create(settings, getClass().getClassLoader());
        try {
            assertThat(client.getConfig().getAddressResolverGroupFactory()).isInstanceOf(JdkAddressResolverFactory.class);
            assertThat(client.getBucket("sluice-resolver-test").isExists()).isFalse();
        } finally {
            client.shutdown();
        }
    }
}
