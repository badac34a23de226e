package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.rule.ConfigLoader;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedisson;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The application's own Sluice, or its own Redisson client, in place of the defaults. */
class OverrideTest {

    @Test
    void applicationSluiceReplacesTheDefaultAndItsRulesAreValidated() {
        System.clearProperty(ConfigLoader.SYSTEM_PROPERTY); // no rules file anywhere: the default producer could not work
        MySluice.closed.set(false);
        try (WeldContainer container = CdiTesting.weld(MySluice.class, UsesMine.class).initialize()) {
            UsesMine bean = container.select(UsesMine.class).get();
            assertThat(bean.call()).isEqualTo("mine");
            assertThatThrownBy(bean::call)
                    .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("mine"));
        }
        assertThat(MySluice.closed).isTrue();
    }

    @Test
    void applicationRedissonClientIsUsedAndLeftOpen() {
        // The rules file names a Redis nobody listens on: only the application's client can reach one.
        var rules = CdiTesting.rulesFile("sluice.redis.address=redis://127.0.0.1:" + TestRedis.freePort(),
                "sluice.rules.viaclient.rate=1/1h", "sluice.rules.viaclient.key=global");
        MyRedisson.client = TestRedisson.client();
        try {
            WeldContainer container = CdiTesting.boot(rules, MyRedisson.class, UsesClient.class);
            try {
                UsesClient bean = container.select(UsesClient.class).get();
                assertThat(bean.call()).isEqualTo("client");
                assertThatThrownBy(bean::call).isInstanceOf(LimitExceededException.class);
            } finally {
                container.shutdown();
            }
            assertThat(MyRedisson.client.isShutdown()).isFalse();
        } finally {
            MyRedisson.client.shutdown();
        }
    }

    @ApplicationScoped
    public static class MySluice {
        static final AtomicBoolean closed = new AtomicBoolean();

        @Produces
        @Singleton
        @Alternative
        @Priority(100)
        Sluice sluice() {
            return Sluice.builder().properties(Map.of(
                    "sluice.rules.mine.rate", "1/1h",
                    "sluice.rules.mine.key", "global")).inMemory().build();
        }

        void close(@Disposes Sluice sluice) {
            sluice.close();
            closed.set(true);
        }
    }

    @ApplicationScoped
    public static class UsesMine {
        @Limited("mine")
        public String call() {
            return "mine";
        }
    }

    @ApplicationScoped
    public static class MyRedisson {
        static RedissonClient client;

        @Produces
        @Singleton
        RedissonClient redisson() {
            return client;
        }
    }

    @ApplicationScoped
    public static class UsesClient {
        @Limited("viaclient")
        public String call() {
            return "client";
        }
    }
}
