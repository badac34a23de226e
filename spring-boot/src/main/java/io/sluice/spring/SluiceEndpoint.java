package io.sluice.spring;

import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.Usage;
import io.sluice.rule.Rule;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Actuator endpoint {@code sluice}, off unless exposed (as every Actuator endpoint but {@code health} is): the
 * rules in effect with whether Redis is connected and the decision counts; one key's usage under a rule
 * ({@link Sluice#usage}); and, with a {@code DELETE}, forgetting a key's usage and block ({@link Sluice#reset}).
 * It shows no key value but the one asked about. Secure it as any Actuator endpoint that changes state. Thread-safe.
 */
@Endpoint(id = "sluice")
public class SluiceEndpoint {
    /** How long a usage read or a reset waits for Redis before the endpoint gives up. */
    private static final long BACKEND_TIMEOUT_SECONDS = 5;

    private final Sluice sluice;

    /**
     * The endpoint of an engine.
     *
     * @param sluice the application's engine
     */
    public SluiceEndpoint(Sluice sluice) {
        this.sluice = sluice;
    }

    /**
     * {@code GET /actuator/sluice}: the rules in effect (read again for each call: a reload replaces them), whether
     * the backend is connected, and the decision counts since start.
     *
     * @return the rules and the engine's state
     */
    @ReadOperation
    public Map<String, Object> rules() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("connected", sluice.connected());
        out.put("rules", sluice.rules().all().stream().map(SluiceEndpoint::describe).toList());
        Stats stats = sluice.stats();
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put("backendCalls", stats.backendCalls());
        counts.put("failedOpen", stats.failedOpen());
        counts.put("failedClosed", stats.failedClosed());
        counts.put("circuitOpenSkips", stats.circuitOpenSkips());
        counts.put("shieldedRejections", stats.shieldedRejections());
        counts.put("failedLocal", stats.failedLocal());
        counts.put("droppedDecisionEvents", stats.droppedDecisionEvents());
        out.put("stats", counts);
        return out;
    }

    /**
     * {@code GET /actuator/sluice/{rule}/{key}}: what a request of one key (as resolved: a user name, an address,
     * {@code *} under {@code key=global}) would see now under a rule, without taking anything: the rate's limit,
     * remaining and reset, the concurrency's limit and requests in flight, and the block's time left. Null (404) for
     * an unknown rule.
     *
     * @param rule the rule's name
     * @param key  the key value
     * @return the key's usage
     * @throws Exception when the backend does not answer in time
     */
    @ReadOperation
    public Map<String, Object> usage(@Selector String rule, @Selector String key) throws Exception {
        if (sluice.rules().get(rule).isEmpty()) return null;
        Usage usage = sluice.usage(rule, key).toCompletableFuture().get(BACKEND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rule", rule);
        usage.rate().ifPresent(r -> out.put("rate", Map.of("limit", r.limit(), "remaining", r.remaining(),
                "resetSeconds", ceilSeconds(r.reset()))));
        usage.concurrency().ifPresent(c -> out.put("concurrency", Map.of("limit", c.limit(), "inFlight", c.inFlight())));
        out.put("blockedSeconds", ceilSeconds(usage.blocked()));
        return out;
    }

    /**
     * {@code DELETE /actuator/sluice/{rule}/{key}}: forgets the key's rate usage and block under the rule, on every
     * server (requests in flight keep their concurrency permits). Null (404) for an unknown rule.
     *
     * @param rule the rule's name
     * @param key  the key value, as for {@link #usage}
     * @return the rule and {@code reset: true}
     * @throws Exception when the backend does not answer in time
     */
    @DeleteOperation
    public Map<String, Object> reset(@Selector String rule, @Selector String key) throws Exception {
        if (sluice.rules().get(rule).isEmpty()) return null;
        sluice.reset(rule, key).toCompletableFuture().get(BACKEND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        return Map.of("rule", rule, "reset", true);
    }

    /** Whole seconds, rounded up, as the {@code Reset} and {@code Retry-After} headers count them. */
    private static long ceilSeconds(Duration d) {
        return (d.toMillis() + 999) / 1000;
    }

    private static Map<String, Object> describe(Rule rule) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", rule.name());
        rule.rate().ifPresent(rate -> out.put("rate", rate.toString()));
        if (rule.limitsConcurrency()) out.put("concurrency", rule.concurrency());
        out.put("paths", rule.paths().stream().map(Object::toString).toList());
        out.put("methods", List.copyOf(rule.methods()));
        out.put("key", rule.key().toString());
        out.put("status", rule.status());
        out.put("dryRun", rule.dryRun());
        return out;
    }
}
