package io.sluice.failure;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RateKeys;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.Resp;
import io.sluice.testing.Connected;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Eviction (or a stale replica) takes one key of a limiter's pair and leaves the other. The survivor must not be
 * trusted blindly: a count of 0 free permits that every request keeps alive would deny forever.
 */
class PartialStateLossTest {
    private final Map<String, String> properties = properties();

    /**
     * A sliding log {@code r} and a semaphore {@code c}, whose pairs of keys can be half lost; and {@code t-<algorithm>}
     * (5 a day, a leaky bucket without a queue) for the algorithms on Redis TIME, whose one key is lost whole or not.
     */
    private static Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.redis.address", TestRedis.address());
        p.put("sluice.key-prefix", "partial-" + UUID.randomUUID().toString().substring(0, 8));
        p.put("sluice.backend-timeout", "5s");
        p.put("sluice.rules.r.rate", "5/1h");
        p.put("sluice.rules.c.concurrency", "2");
        p.put("sluice.rules.c.lease", "30s");
        RateRules.addAll(p, "t", "5/1d", 0, Map.of());
        p.keySet().removeIf(k -> k.startsWith("sluice.rules.t-" + Algorithm.SLIDING_LOG.id() + "."));
        return p;
    }
    private final Sluice sluice = Sluice.fromProperties(properties);

    @BeforeEach
    void connected() {
        Connected.await(sluice);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    private static void del(String key) {
        try (Resp resp = Resp.connect(URI.create(TestRedis.address()).getPort(), Duration.ofSeconds(5))) {
            assertThat(resp.call("DEL", key)).isEqualTo(1L);
        }
    }

    private Rule rule(String name) {
        return sluice.rules().get(name).orElseThrow();
    }

    private Admission admit(String rule, String key) {
        return sluice.admit(List.of(rule(rule)), KeySource.fixed(key)).toCompletableFuture().join();
    }

    /** On the key: two permits granted, a third refused, and both back after release. */
    private void concurrencyExact(String key) {
        Admission first = admit("c", key);
        Admission second = admit("c", key);
        Admission third = admit("c", key);
        assertThat(List.of(first.allowed(), second.allowed(), third.allowed())).containsExactly(true, true, false);
        first.close();
        second.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> sluice.availablePermits(rule("c"), key).toCompletableFuture().join() == 2);
    }

    @Test
    void aSemaphoreWhoseLeasesWereLostDoesNotDenyForever() {
        String key = "lost-leases";
        Admission a = admit("c", key);
        Admission b = admit("c", key);
        assertThat(a.allowed() && b.allowed()).isTrue();
        // Eviction takes the leases but leaves the count (0 free): the leases are gone, so are the holders' claims.
        del("{" + Keys.semaphore(sluice, "c", key) + "}:timeout");
        a.close();
        b.close();
        // Requests keep the count's TTL fresh, so waiting it out is no cure: the next acquire must see the truth.
        concurrencyExact(key);
    }

    @Test
    void aSemaphoreWhoseCountWasLostStillCountsLiveLeases() {
        String key = "lost-count";
        Admission a = admit("c", key);
        Admission b = admit("c", key);
        del(Keys.semaphore(sluice, "c", key));
        assertThat(admit("c", key).allowed()).as("two live leases still fill the semaphore").isFalse();
        a.close();
        b.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> sluice.availablePermits(rule("c"), key).toCompletableFuture().join() == 2);
        concurrencyExact(key);
    }

    @Test
    void aLimiterWhoseLogWasLostDoesNotDenyForever() {
        String key = "lost-log";
        for (int i = 0; i < 5; i++) assertThat(admit("r", key).allowed()).isTrue();
        // Eviction takes the sliding log but leaves the counter (0 free): nothing is consumed in the window any more.
        del(Keys.rateLog(sluice, "r", key));
        // Asked from another server: this one took the last permit, so its attack shield rejects the key
        // locally until the reset it was told (an hour here), whatever happens to Redis meanwhile.
        try (Sluice other = Sluice.fromProperties(properties)) {
            Rule r = other.rules().get("r").orElseThrow();
            for (int i = 0; i < 6; i++) {
                assertThat(other.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join().allowed())
                        .as("request " + (i + 1)).isEqualTo(i < 5);
            }
        }
    }

    /**
     * The algorithms on Redis TIME keep one key per rule and key: eviction takes all of its state or none, and a key
     * taken is a fresh key (its whole capacity, asked from another server whose shield knows nothing of it).
     */
    @Test
    void aLostKeyOfAnAlgorithmOnRedisTimeIsAFreshKey() {
        List<Algorithm> onRedisTime = Arrays.stream(Algorithm.values()).filter(a -> a != Algorithm.SLIDING_LOG).toList();
        for (Algorithm a : onRedisTime) {
            String name = RateRules.name("t", a);
            String key = "lost-" + a.id();
            Rule t = rule(name);
            long capacity = RateRules.capacity(t);
            for (int i = 0; i <= capacity; i++) {
                assertThat(admit(name, key).allowed()).as(name + " request " + (i + 1)).isEqualTo(i < capacity);
            }
            del(RateKeys.name(properties.get("sluice.key-prefix"), name, a, t.rate().orElseThrow().period(), KeyResolver.hash(key)));
        }
        try (Sluice other = Sluice.fromProperties(properties)) {
            for (Algorithm a : onRedisTime) {
                String name = RateRules.name("t", a);
                Rule r = other.rules().get(name).orElseThrow();
                long capacity = RateRules.capacity(r);
                for (int i = 0; i <= capacity; i++) {
                    assertThat(other.admit(List.of(r), KeySource.fixed("lost-" + a.id())).toCompletableFuture().join().allowed())
                            .as(name + " request " + (i + 1) + " after the loss").isEqualTo(i < capacity);
                }
            }
        }
    }
}
