package io.sluice;

import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import io.sluice.spi.LimiterBackend;
import io.sluice.testing.ForwardingBackend;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Overrides looked up on the request path, on the in-memory backend and a hand-moved clock: only the overridden key
 * and rule, a global rule's one key, the end by the clock, a replaced override, a key with both limits, and a backend
 * without the capability.
 */
class OverridesInMemoryTest {
    private final MutableClock clock = MutableClock.startingNow();
    private final List<Sluice> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(Sluice::close);
    }

    private Sluice engine(LimiterBackend backend) {
        Sluice s = Sluice.builder().properties(Map.of(
                        "sluice.rules.api.rate", "2/1h",
                        "sluice.rules.api.key", "user",
                        "sluice.rules.other.rate", "2/1h",
                        "sluice.rules.other.key", "user",
                        "sluice.rules.all.rate", "2/1h",
                        "sluice.rules.all.key", "global",
                        "sluice.rules.both.rate", "2/1h",
                        "sluice.rules.both.concurrency", "1",
                        "sluice.rules.both.key", "user"))
                .backend(backend).clock(clock).ticker(clock).build();
        opened.add(s);
        return s;
    }

    private static KeySource user(String name) {
        return rule -> rule.key().global() ? "*" : name;
    }

    /** Admits and closes a request of {@code user} under {@code rule}: its decisions. */
    private static List<Decision> admit(Sluice s, String rule, String user) {
        Rule r = s.rules().get(rule).orElseThrow();
        Admission a = s.admit(List.of(r), user(user)).toCompletableFuture().join();
        a.close();
        return a.decisions();
    }

    @Test
    void onlyTheOverriddenKeyOfTheOverriddenRuleGetsItsLimit() {
        Sluice s = engine(new InMemoryBackend(clock));
        s.override("api", "alice", "5/1h", Duration.ofMinutes(5)).toCompletableFuture().join();
        assertThat(admit(s, "api", "alice").get(0).limit()).isEqualTo(5);
        assertThat(admit(s, "api", "bob").get(0).limit()).isEqualTo(2);
        assertThat(admit(s, "other", "alice").get(0).limit()).isEqualTo(2);
        // Ends by the clock, without a poll; the poll then forgets it.
        clock.advance(Duration.ofMinutes(5));
        assertThat(admit(s, "api", "alice").get(0).limit()).isEqualTo(2);
        s.pollOverrides().toCompletableFuture().join();
        assertThat(admit(s, "api", "alice").get(0).limit()).isEqualTo(2);
    }

    @Test
    void aGlobalRuleHasOneKeyWhateverTheCallerNames() {
        Sluice s = engine(new InMemoryBackend(clock));
        s.override("all", "anything", "7/1h", Duration.ofMinutes(5)).toCompletableFuture().join();
        assertThat(admit(s, "all", "bob").get(0).limit()).isEqualTo(7);
    }

    @Test
    void aNewOverrideReplacesTheKeysOldOne() {
        Sluice s = engine(new InMemoryBackend(clock));
        s.override("api", "alice", "5/1h", Duration.ofMinutes(5)).toCompletableFuture().join();
        s.override("api", "alice", "9/1h", Duration.ofMinutes(5)).toCompletableFuture().join();
        assertThat(admit(s, "api", "alice").get(0).limit()).isEqualTo(9);
    }

    @Test
    void aRuleWithBothLimitsKeepsTheOneNotOverridden() {
        Sluice s = engine(new InMemoryBackend(clock));
        s.override("both", "alice", "3", Duration.ofMinutes(5)).toCompletableFuture().join();
        List<Decision> d = admit(s, "both", "alice");
        assertThat(d).extracting(Decision::limit).containsExactly(2L, 3L);
        s.override("both", "alice", "unlimited", Duration.ofMinutes(5)).toCompletableFuture().join();
        assertThat(admit(s, "both", "alice")).isEmpty();
    }

    @Test
    void aBackendWithoutOverridesRefusesThemAndDecidesAsAlways() {
        Sluice s = engine(new ForwardingBackend(new InMemoryBackend(clock)));
        assertThatThrownBy(() -> s.override("api", "alice", "5/1h", Duration.ofMinutes(5)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessage("this backend keeps no overrides");
        assertThatThrownBy(() -> s.clearOverride("api", "alice")).isInstanceOf(UnsupportedOperationException.class);
        s.pollOverrides().toCompletableFuture().join();
        assertThat(admit(s, "api", "alice").get(0).limit()).isEqualTo(2);
    }
}
