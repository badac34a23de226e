package io.sluice;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.rule.Rule;
import io.sluice.testing.CountingBackend;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code on-backend-failure=local} through the engine, the backend failing every call (then skipped by the open
 * circuit): each rule is limited by this server's share ({@code sluice.local-share=3} here), decisions say
 * {@code FAILED_LOCAL}, stats and meters count {@code failed_local}; once the backend answers, it decides again. Time
 * is a hand-driven clock (the engine's clock and ticker).
 */
class LocalFailurePolicyTest {
    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final CountingBackend backend = new CountingBackend(clock);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Sluice sluice = Sluice.builder().properties(Map.of(
                    "sluice.local-share", "3",
                    "sluice.on-backend-failure", "local",
                    "sluice.rules.login.rate", "10/1m",
                    "sluice.rules.slots.concurrency", "7",
                    "sluice.rules.hourly.rate", "30/1h", "sluice.rules.tight.rate", "3/1h",
                    "sluice.rules.open.rate", "10/1m", "sluice.rules.open.on-backend-failure", "allow"))
            .backend(backend).clock(clock).ticker(clock).meterRegistry(registry).build();

    @AfterEach
    void close() {
        sluice.close();
    }

    private Admission admit(String rule, String key) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        return sluice.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join();
    }

    private double requests(String rule, String result) {
        Counter c = registry.find("sluice.requests").tags("rule", rule, "result", result).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aRateRuleAdmitsItsShareWhileTheBackendFailsAndTheBackendDecidesOnceBack() {
        backend.down.set(true);
        List<Admission> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) all.add(admit("login", "alice"));
        assertThat(all).extracting(Admission::allowed).containsExactly(true, true, true, false, false, false);
        assertThat(all).allSatisfy(a -> assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.FAILED_LOCAL));
        Decision rejected = all.get(3).rejection().orElseThrow();
        assertThat(rejected.retryAfterSeconds()).isEqualTo(60);
        assertThat(rejected.hasCounts()).as("this server's share is not the key's count").isFalse();
        assertThat(admit("login", "bob").allowed()).as("each key has its share").isTrue();
        // allow still means allow beside it.
        assertThat(admit("open", "alice").decisions().get(0).outcome()).isEqualTo(Decision.Outcome.BACKEND_FAILURE);

        assertThat(sluice.stats().failedLocal()).isEqualTo(7);
        assertThat(sluice.stats().failedOpen()).isEqualTo(1);
        assertThat(sluice.stats().failedClosed()).isZero();
        assertThat(requests("login", "failed_local")).isEqualTo(7);
        assertThat(requests("open", "failed_open")).isEqualTo(1);

        // The window slides on the engine's clock.
        clock.advance(Duration.ofMinutes(1));
        assertThat(admit("login", "alice").allowed()).isTrue();

        // Back: once the circuit lets a probe through, the backend decides, with its own count (nothing of the outage).
        backend.down.set(false);
        clock.advance(Duration.ofSeconds(1));
        List<Admission> after = new ArrayList<>();
        for (int i = 0; i < 11; i++) after.add(admit("login", "alice"));
        assertThat(after).allSatisfy(a -> assertThat(a.decisions().get(0).outcome()).isEqualTo(Decision.Outcome.DECIDED));
        assertThat(after.stream().filter(Admission::allowed).count()).isEqualTo(10);
    }

    @Test
    void aConcurrencyRuleHoldsItsShareInFlightUntilRequestsEnd() {
        backend.down.set(true);
        Admission first = admit("slots", "*");
        Admission second = admit("slots", "*");
        Admission third = admit("slots", "*");
        assertThat(List.of(first, second, third)).extracting(Admission::allowed).containsExactly(true, true, false);
        assertThat(third.rejection().orElseThrow().outcome()).isEqualTo(Decision.Outcome.FAILED_LOCAL);
        assertThat(registry.find("sluice.permits.held").tag("rule", "slots").gauge().value()).isEqualTo(2);
        first.close();
        first.close();
        assertThat(registry.find("sluice.permits.held").tag("rule", "slots").gauge().value()).isEqualTo(1);
        Admission fourth = admit("slots", "*");
        assertThat(fourth.allowed()).isTrue();
        assertThat(admit("slots", "*").allowed()).isFalse();
        second.close();
        fourth.close();
        assertThat(registry.find("sluice.permits.held").tag("rule", "slots").gauge().value()).isZero();
        assertThat(requests("slots", "failed_local")).isEqualTo(5);
    }

    @Test
    void aRequestAnotherRuleRejectsGivesBackWhatTheShareTookForIt() {
        backend.down.set(true);
        List<Rule> both = List.of(sluice.rules().get("hourly").orElseThrow(), sluice.rules().get("tight").orElseThrow());
        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            allowed.add(sluice.admit(both, KeySource.fixed("k")).toCompletableFuture().join().allowed());
        }
        // tight's share is 1 (3 / 3): one admitted; the four it rejected gave back hourly's permit.
        assertThat(allowed).containsExactly(true, false, false, false, false);
        long hourly = 0;
        for (int i = 0; i < 12; i++) if (admit("hourly", "k").allowed()) hourly++;
        assertThat(hourly).as("hourly's share is 10, one taken").isEqualTo(9);
    }
}
