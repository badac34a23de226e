package io.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters one engine publishes, with exact counts per tag combination; run on every backend. Each test
 * sends a known sequence of requests and reads the registry the engine was given.
 */
abstract class MetersContract {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Sluice> built = new ArrayList<>();

    /** An engine for the properties on the backend under test, publishing to {@code registry}. */
    abstract Sluice.Builder builder(Map<String, String> properties);

    Sluice sluice(String... props) {
        Map<String, String> p = new HashMap<>();
        for (int i = 0; i < props.length; i += 2) p.put(props[i], props[i + 1]);
        Sluice s = builder(p).meterRegistry(registry).build();
        built.add(s);
        return s;
    }

    @AfterEach
    void closeEngines() {
        built.forEach(Sluice::close);
    }

    static Admission admit(Sluice s, String rule, String key) {
        Rule r = s.rules().get(rule).orElseThrow();
        return s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join();
    }

    static void decide(Sluice s, String rule, String key) {
        admit(s, rule, key).close();
    }

    double requests(String rule, String type, String result) {
        Counter c = registry.find("sluice.requests").tags("rule", rule, "type", type, "result", result).counter();
        return c == null ? 0 : c.count();
    }

    /** Every {@code sluice.requests} series as "rule/type/result=count". */
    Set<String> requestSeries() {
        Set<String> out = new TreeSet<>();
        for (Counter c : registry.find("sluice.requests").counters()) {
            out.add(c.getId().getTag("rule") + "/" + c.getId().getTag("type") + "/" + c.getId().getTag("result")
                    + "=" + (long) c.count());
        }
        return out;
    }

    double gauge(String name, String... tags) {
        Gauge g = registry.find(name).tags(tags).gauge();
        return g == null ? Double.NaN : g.value();
    }

    @Test
    void rateRulesCountAllowedAndRejectedAndTheShieldsShare() {
        Sluice s = sluice("sluice.rules.posts.rate", "2/1h");
        for (int i = 0; i < 5; i++) decide(s, "posts", "alice");
        decide(s, "posts", "bob");

        assertThat(requestSeries()).containsExactly("posts/rate/allowed=3", "posts/rate/rejected=3");
        // alice's second request took her last permit: the shield answers the three after it.
        Counter shield = registry.find("sluice.shield.rejections").tag("rule", "posts").counter();
        assertThat(shield).isNotNull();
        assertThat(shield.count()).isEqualTo(3);
        assertThat(timerCount("success")).isEqualTo(3).isEqualTo(s.stats().backendCalls());
        assertThat(gauge("sluice.circuit.open")).isEqualTo(0);
        assertNoKeyValueInAnyTag("alice", "bob");
    }

    @Test
    void dryRunRulesCountWhatTheyWouldHaveRejected() {
        Sluice s = sluice("sluice.rules.trial.rate", "1/1h", "sluice.rules.trial.mode", "dry-run");
        for (int i = 0; i < 4; i++) assertThat(admit(s, "trial", "carol").allowed()).isTrue();
        assertThat(requestSeries()).containsExactly("trial/rate/allowed=1", "trial/rate/dry_run_rejected=3");
        assertThat(registry.find("sluice.shield.rejections").counters()).isEmpty();
    }

    @Test
    void aMissingKeyIsSkippedOrRejectedAsTheRuleSays() {
        Sluice s = sluice(
                "sluice.rules.per-user.rate", "5/1h", "sluice.rules.per-user.key", "user",
                "sluice.rules.per-user-slots.concurrency", "2", "sluice.rules.per-user-slots.key", "user",
                "sluice.rules.strict.rate", "5/1h", "sluice.rules.strict.key", "user",
                "sluice.rules.strict.on-missing-key", "deny");
        KeySource anonymous = rule -> null;
        List<Rule> all = s.rules().all();
        for (int i = 0; i < 2; i++) {
            s.admit(List.of(s.rules().get("per-user").get(), s.rules().get("per-user-slots").get()), anonymous)
                    .toCompletableFuture().join().close();
        }
        assertThat(s.admit(all, anonymous).toCompletableFuture().join().allowed()).isFalse();
        assertThat(requestSeries()).containsExactly(
                "per-user-slots/concurrency/skipped=2", "per-user/rate/skipped=3", "strict/rate/rejected=1");
        assertThat(s.stats().backendCalls()).isZero();
    }

    @Test
    void concurrencyRulesCountDecisionsAndThePermitsThisServerHolds() {
        Sluice s = sluice("sluice.rules.images.concurrency", "2", "sluice.rules.images.key", "global");
        Admission first = admit(s, "images", "*");
        Admission second = admit(s, "images", "*");
        Admission third = admit(s, "images", "*");
        assertThat(third.allowed()).isFalse();
        assertThat(gauge("sluice.permits.held", "rule", "images")).isEqualTo(2);
        first.close();
        first.close(); // idempotent: returned once, counted once
        assertThat(gauge("sluice.permits.held", "rule", "images")).isEqualTo(1);
        second.close();
        third.close();
        assertThat(gauge("sluice.permits.held", "rule", "images")).isEqualTo(0);
        assertThat(requestSeries()).containsExactly("images/concurrency/allowed=2", "images/concurrency/rejected=1");
        assertThat(timerCount("success")).isEqualTo(3);
    }

    @Test
    void closingTheEngineRemovesItsMeters() {
        Sluice s = sluice("sluice.rules.posts.rate", "2/1h", "sluice.rules.slots.concurrency", "1");
        decide(s, "posts", "dave");
        decide(s, "slots", "dave");
        assertThat(registry.getMeters()).isNotEmpty();
        s.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    long timerCount(String outcome) {
        Timer t = registry.find("sluice.backend.calls").tag("outcome", outcome).timer();
        return t == null ? 0 : t.count();
    }

    private void assertNoKeyValueInAnyTag(String... keys) {
        Set<String> tagKeys = new TreeSet<>();
        for (Meter m : registry.getMeters()) {
            for (Tag t : m.getId().getTags()) {
                tagKeys.add(t.getKey());
                for (String k : keys) assertThat(t.getValue()).doesNotContain(k);
            }
        }
        assertThat(tagKeys).isSubsetOf("rule", "type", "result", "outcome");
    }
}
