package io.sluice.testing;

import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisProcessTest {
    @Test
    void startsAnswersAndStopsARealServerWithExtraConfiguration() {
        try (RedisProcess redis = RedisProcess.start("maxmemory 2mb")) {
            assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(redis.command("GET", "k")).isEqualTo("v");
            assertThat(redis.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "2097152"));
            assertThatThrownBy(() -> redis.command("NOSUCHCOMMAND")).isInstanceOf(Resp.RedisError.class);

            redis.restart();
            assertThat(redis.command("GET", "k")).as("no persistence: a restart loses the data").isNull();

            redis.shutdown();
            assertThat(redis.isAlive()).isFalse();
            assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(UncheckedIOException.class);
        }
    }
}
