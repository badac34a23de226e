package io.sluice;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.key.FakeRequest;
import io.sluice.key.RequestView;
import io.sluice.rule.Rule;
import io.sluice.testing.CountingBackend;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code exempt}, {@code when} and {@code key=user|ip} through a whole engine: decided before any backend call, an
 * exempt request counted as {@code exempt} in the meters, a rule that does not apply not reported at all, and a key
 * source of code's own (no users, no roles) limited by every rule.
 */
class AudienceThroughTheEngineTest {
    private static final Map<String, String> RULES = Map.of(
            "sluice.trusted-proxies", "192.0.2.10",
            "sluice.rules.api.rate", "2/1h", "sluice.rules.api.key", "user|ip",
            "sluice.rules.api.exempt", "ip:10.0.0.0/8, user:monitor",
            "sluice.rules.anon.rate", "1/1h", "sluice.rules.anon.key", "ip", "sluice.rules.anon.when", "anonymous",
            "sluice.rules.auth.concurrency", "1", "sluice.rules.auth.key", "user", "sluice.rules.auth.when", "authenticated");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CountingBackend backend = new CountingBackend(Clock.systemUTC());

    private static Admission admit(Sluice s, RequestView request, String... rules) {
        List<Rule> applicable = java.util.Arrays.stream(rules).map(n -> s.rules().get(n).orElseThrow()).toList();
        return s.admit(applicable, s.keysOf(request)).toCompletableFuture().join();
    }

    private double requests(String rule, String type, String result) {
        var c = registry.find("sluice.requests").tags("rule", rule, "type", type, "result", result).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void anExemptRequestIsNeitherCountedNorSentToTheBackend() {
        try (Sluice s = Sluice.builder().properties(RULES).backend(backend).meterRegistry(registry).build()) {
            FakeRequest internal = FakeRequest.from("192.0.2.10").header("X-Forwarded-For", "10.1.2.3");
            for (int i = 0; i < 5; i++) {
                try (Admission a = admit(s, internal, "api")) {
                    assertThat(a.allowed()).isTrue();
                    assertThat(a.decisions()).isEmpty();
                }
            }
            try (Admission a = admit(s, FakeRequest.from("203.0.113.9").user("monitor"), "api")) {
                assertThat(a.decisions()).isEmpty();
            }
            assertThat(backend.calls.get()).isZero();
            assertThat(requests("api", "rate", "exempt")).isEqualTo(6);
            assertThat(requests("api", "rate", "allowed")).isZero();
            // The same forwarded header from a peer that is not a trusted proxy exempts nothing.
            FakeRequest spoofed = FakeRequest.from("203.0.113.9").header("X-Forwarded-For", "10.1.2.3");
            assertThat(admit(s, spoofed, "api").allowed()).isTrue();
            assertThat(admit(s, spoofed, "api").allowed()).isTrue();
            assertThat(admit(s, spoofed, "api").allowed()).isFalse();
            assertThat(requests("api", "rate", "allowed")).isEqualTo(2);
            assertThat(requests("api", "rate", "rejected")).isEqualTo(1);
        }
    }

    @Test
    void aUserAndTheAddressOfHisNameAreTwoCounters() {
        try (Sluice s = Sluice.builder().properties(RULES).backend(backend).meterRegistry(registry).build()) {
            FakeRequest named = FakeRequest.from("198.51.100.1").user("203.0.113.5");
            FakeRequest address = FakeRequest.from("203.0.113.5");
            for (int i = 0; i < 2; i++) assertThat(admit(s, named, "api").allowed()).isTrue();
            assertThat(admit(s, named, "api").allowed()).isFalse();
            for (int i = 0; i < 2; i++) assertThat(admit(s, address, "api").allowed()).isTrue();
            assertThat(admit(s, address, "api").allowed()).isFalse();
            // Logged in, from the address whose anonymous counter is spent: the user's own counter.
            assertThat(admit(s, FakeRequest.from("203.0.113.5").user("carol"), "api").allowed()).isTrue();
        }
    }

    @Test
    void aRuleForAnotherAudienceMakesNoDecisionAndNoMeter() {
        try (Sluice s = Sluice.builder().properties(RULES).backend(backend).meterRegistry(registry).build()) {
            FakeRequest anonymous = FakeRequest.from("203.0.113.9");
            FakeRequest dave = FakeRequest.from("203.0.113.9").user("dave");
            try (Admission a = admit(s, anonymous, "anon", "auth")) {
                assertThat(a.decisions()).extracting(Decision::ruleName).containsExactly("anon");
            }
            assertThat(admit(s, anonymous, "anon", "auth").allowed()).isFalse();
            try (Admission a = admit(s, dave, "anon", "auth")) {
                assertThat(a.allowed()).isTrue();
                assertThat(a.decisions()).extracting(Decision::ruleName).containsExactly("auth");
                // dave holds auth's one permit: his second call is rejected by it, not by anon.
                try (Admission b = admit(s, dave, "anon", "auth")) {
                    assertThat(b.rejection().orElseThrow().ruleName()).isEqualTo("auth");
                }
            }
            assertThat(registry.find("sluice.requests").tags("rule", "auth", "type", "concurrency").counters())
                    .allSatisfy(c -> assertThat(c.getId().getTag("result")).isIn("allowed", "rejected"));
            assertThat(requests("anon", "rate", "allowed") + requests("anon", "rate", "rejected")).isEqualTo(2);
            assertThat(requests("anon", "rate", "skipped") + requests("anon", "rate", "exempt")).isZero();
        }
    }

    @Test
    void aKeySourceOfCodesOwnIsLimitedByEveryRule() {
        try (Sluice s = Sluice.builder().properties(RULES).backend(backend).meterRegistry(registry).build()) {
            List<Rule> all = List.of(s.rules().get("anon").orElseThrow(), s.rules().get("api").orElseThrow());
            KeySource monitor = KeySource.fixed("monitor").withCost(1).withPlan(null);
            try (Admission a = s.admit(all, monitor).toCompletableFuture().join()) {
                assertThat(a.decisions()).extracting(Decision::ruleName).containsExactly("anon", "api");
            }
            assertThat(s.admit(all, monitor).toCompletableFuture().join().rejection().orElseThrow().ruleName()).isEqualTo("anon");
        }
    }

    @Test
    void aForwardedSourceKeepsTheRequestsAudience() {
        try (Sluice s = Sluice.builder().properties(RULES).backend(backend).meterRegistry(registry).build()) {
            KeySource internal = s.keysOf(FakeRequest.from("10.9.9.9")).withCost(2).withPlan("x");
            List<Rule> api = List.of(s.rules().get("api").orElseThrow());
            for (int i = 0; i < 3; i++) assertThat(s.admit(api, internal).toCompletableFuture().join().decisions()).isEmpty();
            KeySource dave = s.keysOf(FakeRequest.from("203.0.113.9").user("dave")).withCost(1);
            List<Rule> anon = List.of(s.rules().get("anon").orElseThrow());
            assertThat(s.admit(anon, dave).toCompletableFuture().join().decisions()).isEmpty();
        }
    }
}
