package io.sluice.redisson;

import io.sluice.internal.Coalescer;
import io.sluice.spi.Entry;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * Rate decisions for different keys that wait at the same moment, sent to Redis as one script call. A lane is one
 * algorithm's script in one cluster slot: while a lane has a call in flight, decisions that arrive for it queue,
 * and when the call ends they go together (at most {@link #MAX_UNITS} keys' worth; more wait for the call after). An idle lane's decision is sent at once, alone, so nothing waits that
 * would not have waited for a connection anyway; under load the client sends, encodes and decodes one command
 * where it sent dozens, and Redis runs one script where it ran dozens.
 *
 * <p>One lane, not several, per algorithm and cluster slot: a lane hands over to its next call as soon as an answer arrives
 * (see {@code RedissonBackend}), so Redis does not wait for the client, and one lane makes the biggest batches
 * (measured against 2 and 4 in BENCHMARKS.md, "Cross-key calls and runs").
 *
 * <p>A key always falls in the same lane, so its decisions stay in the order they were made. Decisions queued
 * behind a call that failed (Redis down, or slower than the client's timeout) fail with it, unsent: a decision is
 * never sent after its caller could have given up on it. Thread-safe.
 */
final class DecisionLanes {
    /** Keys' decisions in one call at most, each key's at most {@code Lanes.MAX_BATCH}. */
    static final int MAX_UNITS = 64;

    /**
     * One key's decisions, in order, then (when {@code ahead} is not null) permits prefetched after them, and where
     * their answers go: one per request, then one for the prefetch (its last decision's; how many it took is in
     * {@link Ahead#taken}). A refund's {@code entry} is where its admitted answer said the permits are kept
     * ({@link RateOutcome#entry()}; null when not known).
     */
    record Unit(List<RateRequest> requests, String mode, Ahead ahead, CompletableFuture<List<RateOutcome>> answers,
                Entry entry) {
        Unit(List<RateRequest> requests, String mode, Ahead ahead, CompletableFuture<List<RateOutcome>> answers) {
            this(requests, mode, ahead, answers, null);
        }

        Unit(List<RateRequest> requests, String mode) {
            this(requests, mode, null, new CompletableFuture<>());
        }

        /** A refund of {@code request}'s permits, kept where {@code entry} says (null: not known). */
        static Unit refund(RateRequest request, String refundMode, Entry entry) {
            return new Unit(List.of(request), refundMode, null, new CompletableFuture<>(), entry);
        }

        /** The arguments of request {@code r} of the unit, for {@code decider}. */
        String[] arguments(DecisionScript decider, RateRequest r, String now) {
            return entry == null ? decider.arguments(r, mode, now) : decider.refundArguments(r, entry, now);
        }

        /** The unit's first request: a prefetch alone has only its permit's. */
        RateRequest first() {
            return requests.isEmpty() ? ahead.request() : requests.get(0);
        }

        /** How many answers the unit gets. */
        int answerCount() {
            return requests.size() + (ahead == null ? 0 : 1);
        }
    }

    /**
     * Permits of cost 1 prefetched after a unit's requests: {@code request} at cost 1, up to {@code count} of them,
     * for a hold of {@code offsetMillis}, under Sluice's id {@code id} (a sliding log logs them as one entry with that
     * id, that long after now; a token bucket and a window counter lend them under it). How many the script took is
     * set in {@code taken}, and how long their stock may be handed out ({@link DecisionScript#stockEndsIn}) in
     * {@code endsIn}, before the unit's answers complete; the caller's time the call was sent at is set in
     * {@code sentAt} (0 while unsent), so that a call whose answer never comes can be undone. {@code usedUp} are the
     * ids of the key's stocks the server used up, which a token bucket's or a window counter's loan forgets first
     * ({@link io.sluice.spi.Prefetching#prefetch(RateRequest, long, java.time.Duration, List)}).
     */
    record Ahead(RateRequest request, long count, long offsetMillis, String id, AtomicLong taken, AtomicLong sentAt,
                 AtomicLong endsIn, List<String> usedUp) {
        /** A prefetch not answered yet, its stock's end not known, forgetting the used-up stocks {@code usedUp}. */
        Ahead(RateRequest request, long count, long offsetMillis, String id, AtomicLong taken, AtomicLong sentAt,
              List<String> usedUp) {
            this(request, count, offsetMillis, id, taken, sentAt, new AtomicLong(Prefetch.NO_END), usedUp);
        }

        /** A prefetch not answered yet, forgetting nothing. */
        Ahead(RateRequest request, long count, long offsetMillis, String id, AtomicLong taken, AtomicLong sentAt) {
            this(request, count, offsetMillis, id, taken, sentAt, List.of());
        }
    }

    /** Sends the units of one lane in one script call; completes each unit's answers, and ends when the call has. */
    @FunctionalInterface
    interface Sender {
        CompletionStage<Void> send(List<Unit> units);
    }

    private final Coalescer<Unit> coalescer;
    /** A key's cluster slot (0 outside a cluster); null when keys of one slot cannot be told apart from others. */
    private final ToIntFunction<String> slots;
    /** The mode of units that hand permits back. */
    private final String refundMode;

    /**
     * @param slots      a key's cluster slot, or null to keep every key in a lane of its own (no keys share a call)
     * @param refundMode the mode of units that hand permits back, which go in lanes of their own
     */
    DecisionLanes(ToIntFunction<String> slots, String refundMode, Sender sender) {
        this.slots = slots;
        this.refundMode = refundMode;
        this.coalescer = new Coalescer<>(MAX_UNITS, (lane, units, behind) -> {
            if (behind != null) {
                for (Unit u : units) u.answers().completeExceptionally(behind);
                return CompletableFuture.completedFuture(null);
            }
            CompletionStage<Void> call;
            try {
                call = sender.send(units);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            return call.handle((ignored, e) -> e);
        });
    }

    /** Decides {@code requests} (one key's, in order) in the next call of their key's lane. */
    CompletionStage<List<RateOutcome>> submit(List<RateRequest> requests, String mode) {
        return submit(new Unit(requests, mode));
    }

    /** Sends {@code unit} in the next call of its key's lane. */
    CompletionStage<List<RateOutcome>> submit(Unit unit) {
        coalescer.submit(lane(unit), unit);
        return unit.answers();
    }

    /**
     * A unit's lane: its algorithm's and cluster slot's, one for decisions and others for what no decision should
     * wait behind: refunds (permits given back after a rejection or an unpaid overage) and refills (a prefetch without a request, which nobody waits for).
     */
    private String lane(Unit unit) {
        RateRequest r = unit.first();
        String kind = unit.mode().equals(refundMode) ? "refund:" : unit.requests().isEmpty() ? "refill:" : "";
        // A rule with a block runs its algorithm's script inside block.lua: a lane of its own.
        if (r.blocks()) kind += "block:";
        String key = r.key();
        if (slots == null) return kind + r.algorithm().ordinal() + ":" + key;
        return kind + r.algorithm().ordinal() + ":" + slots.applyAsInt(key);
    }
}
