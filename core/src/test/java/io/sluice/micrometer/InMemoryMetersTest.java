package io.sluice.micrometer;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.spi.BackendProvider;
import io.sluice.testing.CountingBackend;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The meters on the in-memory backend, plus what only a backend of the test's own can show: failures. */
class InMemoryMetersTest extends MetersContract {
    @Override
    Sluice.Builder builder(Map<String, String> properties) {
        return Sluice.builder().properties(properties).inMemory();
    }

    @Test
    void backendFailuresCountAsFailedOpenOrClosedAndOpenTheCircuitGauge() {
        CountingBackend backend = new CountingBackend(Clock.systemUTC());
        backend.down.set(true);
        try (Sluice s = Sluice.builder().properties(Map.of(
                        "sluice.rules.lenient.rate", "5/1h",
                        "sluice.rules.strict.rate", "5/1h", "sluice.rules.strict.on-backend-failure", "deny",
                        "sluice.rules.slots.concurrency", "1", "sluice.rules.slots.on-backend-failure", "deny"))
                .backend(backend).meterRegistry(registry).build()) {
            assertThat(gauge("sluice.circuit.open")).isEqualTo(0);
            for (int i = 0; i < 3; i++) {
                decide(s, "lenient", "erin");
                decide(s, "strict", "erin");
            }
            decide(s, "slots", "erin");
            assertThat(requestSeries()).containsExactly("lenient/rate/failed_open=3", "slots/concurrency/failed_closed=1",
                    "strict/rate/failed_closed=3");
            // Five consecutive failures open the circuit; the calls it skipped are not backend calls.
            assertThat(gauge("sluice.circuit.open")).isEqualTo(1);
            assertThat(timerCount("error")).isBetween(5L, 7L).isEqualTo(s.stats().backendCalls());
            assertThat(timerCount("success")).isZero();
        }
    }

    @Test
    void withoutARegistryTheMetersGoToTheGlobalRegistry() {
        SimpleMeterRegistry global = new SimpleMeterRegistry();
        Metrics.addRegistry(global);
        // A rule name of its own: other tests in this JVM may leave engines of theirs publishing here.
        String rule = "global-registry-probe";
        try (Sluice s = Sluice.builder().properties(Map.of("sluice.rules." + rule + ".rate", "1/1h")).inMemory().build()) {
            decide(s, rule, "frank");
            decide(s, rule, "frank");
            assertThat(global.find("sluice.requests").tags("rule", rule, "result", "allowed").counter().count()).isEqualTo(1);
            assertThat(global.find("sluice.requests").tags("rule", rule, "result", "rejected").counter().count()).isEqualTo(1);
        } finally {
            Metrics.removeRegistry(global);
        }
        assertThat(Metrics.globalRegistry.find("sluice.requests").tag("rule", rule).counters()).as("removed on close").isEmpty();
    }

    @Test
    void aBuildThatFailsLeavesNoMeterBehind() {
        // A backend that cannot be made, as Redisson's for a missing configuration file.
        BackendProvider missingConfig = (settings, loader, clock, timeout) -> {
            throw new ConfigException("sluice.redis.config = \"" + settings.redisConfig().orElseThrow() + "\": not found");
        };
        assertThatThrownBy(() -> Sluice.builder().properties(Map.of("sluice.redis.config", "file:/nonexistent/redisson.yaml",
                "sluice.rules.g.rate", "1/1h")).backend(missingConfig).meterRegistry(registry).build())
                .isInstanceOf(ConfigException.class);
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aRegistryThatIsNotAMeterRegistryIsRefusedAtBuild() {
        assertThatThrownBy(() -> Sluice.builder().properties(Map.of("sluice.rules.g.rate", "1/1h")).inMemory()
                .meterRegistry(List.of()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("meterRegistry(java.util.ImmutableCollections$ListN): expected an "
                        + "io.micrometer.core.instrument.MeterRegistry");
    }
}
