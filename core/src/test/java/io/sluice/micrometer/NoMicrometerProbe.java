package io.sluice.micrometer;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Runs inside {@link WithoutMicrometerTest}'s class loader, which has everything of the test class path but
 * Micrometer: builds an engine, decides, and reports what it saw as plain strings (no test library needed).
 */
public final class NoMicrometerProbe implements Callable<List<String>> {
    @Override
    public List<String> call() {
        List<String> seen = new ArrayList<>();
        seen.add("micrometer present: " + Micrometer.present());
        try (Sluice s = Sluice.builder().properties(Map.of(
                "sluice.rules.posts.rate", "2/1h",
                "sluice.rules.slots.concurrency", "1", "sluice.rules.slots.key", "global")).inMemory().build()) {
            Rule posts = s.rules().get("posts").orElseThrow();
            for (int i = 0; i < 3; i++) {
                try (Admission a = s.admit(List.of(posts), KeySource.fixed("alice")).toCompletableFuture().join()) {
                    seen.add("posts " + (a.allowed() ? "allowed" : "rejected"));
                }
            }
            Rule slots = s.rules().get("slots").orElseThrow();
            Admission held = s.admit(List.of(slots), KeySource.fixed("*")).toCompletableFuture().join();
            Admission second = s.admit(List.of(slots), KeySource.fixed("*")).toCompletableFuture().join();
            seen.add("slots " + held.allowed() + " " + second.allowed());
            held.close();
            second.close();
            seen.add("connected " + s.connected());
        }
        try {
            Sluice.builder().properties(Map.of("sluice.rules.posts.rate", "2/1h")).inMemory()
                    .meterRegistry(new Object()).build().close();
            seen.add("a registry accepted without Micrometer");
        } catch (IllegalArgumentException e) {
            seen.add(e.getMessage());
        }
        return seen;
    }
}
