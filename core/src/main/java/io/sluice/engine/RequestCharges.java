package io.sluice.engine;

import io.sluice.Admission;
import io.sluice.Ending;
import io.sluice.engine.rate.RateDecider;
import io.sluice.rule.Rule;
import io.sluice.rule.Settle;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate permits an admitted request took, kept until it ends: given back for the rules whose {@code count} does
 * not count how it ended, or settled at its actual cost. Thread-safe: each rule is settled once.
 */
final class RequestCharges implements Admission.Charges {
    private final List<Admitter.Taken> taken;
    private final RateDecider rates;
    /** Rules settled already, by name. */
    private final Set<String> settled = ConcurrentHashMap.newKeySet();

    RequestCharges(List<Admitter.Taken> taken, RateDecider rates) {
        this.taken = List.copyOf(taken);
        this.rates = rates;
    }

    @Override
    public CompletionStage<Void> end(Ending ending) {
        List<CompletableFuture<Void>> back = new ArrayList<>(1);
        for (Admitter.Taken t : taken) {
            if (t.limits().count().counts(ending)) continue;
            // Permits of this server's share (on-backend-failure=local) go back to the share, not to Redis.
            back.add(t.giveBack(rates).toCompletableFuture());
        }
        return CompletableFuture.allOf(back.toArray(CompletableFuture[]::new));
    }

    @Override
    public CompletionStage<Void> settle(String rule, long actualCost) {
        Admitter.Taken t = taken.stream().filter(x -> x.limits().name().equals(rule)).findFirst().orElse(null);
        // Nothing taken, or settled already: the first settlement stands. A local decision's share is settled by its
        // estimate: the share is a stand-in for Redis while it cannot answer, not an account to charge.
        if (t == null || t.local() || !settled.add(rule)) return CompletableFuture.completedFuture(null);
        Rule limits = t.limits();
        long actual = Math.min(actualCost, Settle.mostOwed(limits));
        if (actual > t.cost()) return rates.charge(limits, t.raw(), actual - t.cost());
        // Back to where the permits were counted (a window counter's window), as any give-back of the request's.
        if (actual < t.cost()) return rates.giveBack(limits, t.raw(), t.cost() - actual, t.entry(), t.overLimit());
        return CompletableFuture.completedFuture(null);
    }
}
