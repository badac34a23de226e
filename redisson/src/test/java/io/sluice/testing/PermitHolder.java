package io.sluice.testing;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.rule.Rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An app server in a child JVM for the node-crash tests: takes {@code permits} permits of a global concurrency
 * rule ({@code concurrency}, {@code lease}) on the given Redis, prints {@code HOLDING <n>}, and holds them (renewing
 * their leases, as a long request does) until it is killed.
 *
 * <p>Arguments: {@code <redis address> <concurrency> <lease> <permits>}.
 */
public final class PermitHolder {
    private PermitHolder() {
    }

    public static void main(String[] args) throws Exception {
        Sluice sluice = Sluice.fromProperties(Map.of("sluice.redis.address", args[0],
                "sluice.backend-timeout", "2s",
                "sluice.rules.slots.key", "global",
                "sluice.rules.slots.concurrency", args[1],
                "sluice.rules.slots.lease", args[2]));
        Rule rule = sluice.rules().get("slots").orElseThrow();
        int wanted = Integer.parseInt(args[3]);
        List<Admission> held = new ArrayList<>();
        while (held.size() < wanted) {
            Admission a = sluice.admit(List.of(rule), KeySource.fixed("*")).toCompletableFuture().join();
            if (a.allowed() && a.decisions().get(0).outcome() == io.sluice.Decision.Outcome.DECIDED) {
                held.add(a);
            } else {
                a.close();
                Thread.sleep(50); // retry until Redis grants it
            }
        }
        System.out.println("HOLDING " + held.size());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // a request that never ends; only a kill stops it
    }
}
