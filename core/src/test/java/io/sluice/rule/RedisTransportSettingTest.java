package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code sluice.redis.transport}: {@code auto} (the default), {@code nio} or {@code epoll}, for the client built for
 * {@code sluice.redis.address}; refused beside {@code sluice.redis.config}, whose YAML has its own transport.
 */
class RedisTransportSettingTest {
    @Test
    void defaultsToAuto() {
        assertThat(RuleParser.parse(Map.of("sluice.rules.a.rate", "1/s")).settings().redisTransport())
                .isEqualTo(RedisTransport.AUTO);
    }

    @Test
    void takesEachValueInAnyCase() {
        assertThat(transport("auto")).isEqualTo(RedisTransport.AUTO);
        assertThat(transport("nio")).isEqualTo(RedisTransport.NIO);
        assertThat(transport("epoll")).isEqualTo(RedisTransport.EPOLL);
        assertThat(transport(" EPOLL ")).isEqualTo(RedisTransport.EPOLL);
        assertThat(RedisTransport.EPOLL.id()).isEqualTo("epoll");
    }

    @Test
    void aBadValueIsNamedWithTheExpectedForm() {
        for (String bad : new String[]{"kqueue", "io_uring", "", "native"}) {
            ConfigException e = catchThrowableOfType(ConfigException.class,
                    () -> RuleParser.parse(Map.of("sluice.redis.transport", bad, "sluice.rules.a.rate", "1/s")));
            assertThat(e.problems()).containsExactly("sluice.redis.transport = \"" + bad + "\": expected auto, nio or epoll");
        }
    }

    @Test
    void isRefusedBesideARedissonYamlFile() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> RuleParser.parse(Map.of(
                "sluice.redis.config", "classpath:redisson.yaml", "sluice.redis.transport", "epoll", "sluice.rules.a.rate", "1/s")));
        assertThat(e.problems()).containsExactly("sluice.redis.transport = \"epoll\": expected no value beside sluice.redis.config "
                + "(set transportMode in the Redisson YAML file instead)");
    }

    private static RedisTransport transport(String value) {
        return RuleParser.parse(Map.of("sluice.redis.transport", value, "sluice.rules.a.rate", "1/s")).settings().redisTransport();
    }
}
