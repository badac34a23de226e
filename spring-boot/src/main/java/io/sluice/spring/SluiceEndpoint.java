package io.sluice.spring;

import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.rule.Rule;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Actuator endpoint {@code sluice}, off unless exposed (as every Actuator endpoint but {@code health} is): the
 * rules in effect with whether Redis is connected and the decision counts, and one key's free permits under a
 * concurrency rule. It shows no key value but the one asked about. Thread-safe.
 */
@Endpoint(id = "sluice")
public class SluiceEndpoint {
    /** How long a usage read waits for Redis before the endpoint gives up. */
    private static final long USAGE_TIMEOUT_SECONDS = 5;

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
        out.put("stats", counts);
        return out;
    }

    /**
     * {@code GET /actuator/sluice/{rule}/{key}}: the permits free now for one key (as resolved: a user name, an
     * address, {@code *} under {@code key=global}) under a concurrency rule. Null (404) for an unknown rule or one
     * without {@code concurrency}: a rate's usage cannot be read without taking a permit.
     *
     * @param rule the rule's name
     * @param key  the key value
     * @return the rule's limit and the key's free permits
     * @throws Exception when the backend does not answer in time
     */
    @ReadOperation
    public Map<String, Object> usage(@Selector String rule, @Selector String key) throws Exception {
        Optional<Rule> found = sluice.rules().get(rule).filter(Rule::limitsConcurrency);
        if (found.isEmpty()) return null;
        int available = sluice.availablePermits(found.get(), key).toCompletableFuture()
                .get(USAGE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rule", rule);
        out.put("concurrency", found.get().concurrency());
        out.put("available", available);
        return out;
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
