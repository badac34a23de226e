package io.sluice;

import io.sluice.rule.HeaderStyle;
import io.sluice.rule.Settle;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The verdict of every rule that applied to one request, and the concurrency permits it holds. Close
 * it when the request really ends (for an async request: when it completes): that returns the permits,
 * exactly once however often it is called. A rejected admission holds no permits.
 *
 * <p>Before closing it, an adapter tells it how the request ended ({@link #end}), so that rules with a {@code count}
 * give back what an uncounted request took, and code may charge a request its actual cost ({@link #settle}).
 *
 * <p>Thread-safe.
 */
public final class Admission implements AutoCloseable {
    private static final Admission NONE = new Admission(List.of(), null, () -> { });

    private final List<Decision> decisions;
    private final Decision rejection;
    private final Runnable release;
    private final HeaderStyle headerStyle;
    private final Charges charges;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * What an admitted request's rate rules took, as the engine keeps it to give back or settle once the request has
     * ended. Implemented by the engine; thread-safe.
     */
    public interface Charges {
        /** Nothing taken: nothing to give back or settle. */
        Charges NONE = new Charges() {
            @Override
            public CompletionStage<Void> end(Ending ending) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletionStage<Void> settle(String rule, long actualCost) {
                return CompletableFuture.completedFuture(null);
            }
        };

        /**
         * Gives back what the rules that do not count {@code ending} took.
         *
         * @param ending how the request ended
         * @return completes once given back (or its deadline passed)
         */
        CompletionStage<Void> end(Ending ending);

        /**
         * Charges the request {@code actualCost} instead of what rule {@code rule} took for it.
         *
         * @param rule       the rule's name
         * @param actualCost what the request really cost
         * @return completes once charged (or its deadline passed)
         */
        CompletionStage<Void> settle(String rule, long actualCost);
    }

    Admission(List<Decision> decisions, Decision rejection, Runnable release) {
        this(decisions, rejection, release, HeaderStyle.ALL, Charges.NONE);
    }

    /** {@code headerStyle}: the headers a rejection's {@link LimitExceededException} asks for. */
    Admission(List<Decision> decisions, Decision rejection, Runnable release, HeaderStyle headerStyle, Charges charges) {
        this.decisions = List.copyOf(decisions);
        this.rejection = rejection;
        this.release = release;
        this.headerStyle = headerStyle;
        this.charges = charges;
    }

    /**
     * An admitted request, as the engine answers it (and as an adapter's tests may build one).
     *
     * @param decisions the decision of each rule that applied, in the order decided
     * @param release   gives back what the request holds (its concurrency permits); run once, on {@link #close()}
     * @return the admission
     */
    public static Admission admitted(List<Decision> decisions, Runnable release) {
        return new Admission(decisions, null, release);
    }

    /**
     * An admitted request whose rate permits the engine may give back or settle when it ends.
     *
     * @param decisions the decision of each rule that applied, in the order decided
     * @param release   gives back what the request holds (its concurrency permits); run once, on {@link #close()}
     * @param charges   what its rate rules took, for {@link #end} and {@link #settle}
     * @return the admission
     */
    public static Admission admitted(List<Decision> decisions, Runnable release, Charges charges) {
        return new Admission(decisions, null, release, HeaderStyle.ALL, Objects.requireNonNull(charges));
    }

    /**
     * A rejected request, as the engine answers it: it holds nothing.
     *
     * @param decisions   the decisions made before and including the rejection
     * @param rejection   the decision that rejected it
     * @param headerStyle the headers its {@link LimitExceededException} asks for
     * @return the admission
     */
    public static Admission rejected(List<Decision> decisions, Decision rejection, HeaderStyle headerStyle) {
        return new Admission(decisions, Objects.requireNonNull(rejection), () -> { }, headerStyle, Charges.NONE);
    }

    /** {@return an admission of a request no rule applied to: allowed, no decisions, no permits} */
    public static Admission none() {
        return NONE;
    }

    /** {@return whether the request may go on} */
    public boolean allowed() {
        return rejection == null;
    }

    /** {@return the decision that rejected the request, if one did} */
    public Optional<Decision> rejection() {
        return Optional.ofNullable(rejection);
    }

    /** {@return every decision made, in the order made} */
    public List<Decision> decisions() {
        return decisions;
    }

    /**
     * The decision to advertise in headers: the rejection, or else the most restrictive rate decision
     * (fewest remaining, then latest reset), or else the tightest concurrency decision. Decisions made
     * without the backend carry no counts and are never advertised.
     *
     * @return the decision to advertise, or empty when none carries counts
     */
    public Optional<Decision> headline() {
        if (rejection != null) return Optional.of(rejection);
        Comparator<Decision> tightest = Comparator.comparingLong(Decision::remaining)
                .thenComparing(Comparator.comparing(Decision::reset).reversed());
        Optional<Decision> rate = decisions.stream()
                .filter(d -> d.kind() == Decision.Kind.RATE && d.hasCounts()).min(tightest);
        if (rate.isPresent()) return rate;
        return decisions.stream().filter(d -> d.kind() == Decision.Kind.CONCURRENCY && d.hasCounts()).min(tightest);
    }

    /**
     * The decision to advertise once the request has ended so: {@link #headline()}, with the permits of each rule
     * whose {@code count} does not count {@code ending} back in its Remaining (at most its limit).
     *
     * @param ending how the request ended (or would end, if its response were committed now)
     * @return the decision to advertise, or empty when none carries counts
     */
    public Optional<Decision> headline(Ending ending) {
        if (rejection != null) return headline();
        boolean any = false;
        for (Decision d : decisions) any |= givenBack(d, ending);
        if (!any) return headline();
        List<Decision> after = decisions.stream().map(d -> givenBack(d, ending) ? d.withRemaining(
                Math.min(d.limit(), d.remaining() + d.cost())) : d).toList();
        return new Admission(after, null, () -> { }).headline();
    }

    /** Whether {@code d} took rate permits its rule gives back for a request that ended so. */
    private static boolean givenBack(Decision d, Ending ending) {
        return d.kind() == Decision.Kind.RATE && d.allowed() && d.hasCounts() && !d.rule().count().counts(ending);
    }

    /**
     * Tells the engine how the admitted request ended: each rule whose {@code count} does not count {@code ending}
     * gives back the rate permits it took (a successful login under {@code count=failure}). Only the first call does
     * anything; call it before {@link #close()}. Without it, every request counts.
     *
     * @param ending how the request ended
     * @return completes once the permits are back (or the backend's deadline has passed)
     */
    public CompletionStage<Void> end(Ending ending) {
        Objects.requireNonNull(ending, "ending");
        if (rejection != null || !ended.compareAndSet(false, true)) return CompletableFuture.completedFuture(null);
        return charges.end(ending);
    }

    /**
     * Charges the request its actual cost under rule {@code rule} in place of the {@code cost} it was admitted on (an
     * estimate): the difference is taken even past the limit (the key is then rejected until time repays it) or given
     * back. Once per rule: a second settlement of the same rule is ignored. An actual cost above 100 periods of the
     * rule's permits is charged as that (a broken report puts the key in debt for a bounded time).
     *
     * @param rule       the name of a rate rule that admitted this request, counted by {@code token-bucket},
     *                   {@code fixed-window} or {@code sliding-window}, hard, without prefetch and with {@code count=all}
     * @param actualCost what the request really cost, 0 or more
     * @return completes once charged (or the backend's deadline has passed); at once when the rule took nothing for
     *         this request (it rejected it, was skipped or failed open, or did not apply)
     * @throws IllegalArgumentException when the rule cannot be settled, or the cost is negative
     */
    public CompletionStage<Void> settle(String rule, long actualCost) {
        Objects.requireNonNull(rule, "rule");
        if (actualCost < 0) throw new IllegalArgumentException("an actual cost must not be negative: " + actualCost);
        Optional<Decision> taken = decisions.stream()
                .filter(d -> d.kind() == Decision.Kind.RATE && d.ruleName().equals(rule)).findFirst();
        taken.flatMap(d -> Settle.refusal(d.rule())).ifPresent(why -> {
            throw new IllegalArgumentException("rule " + rule + " cannot be settled: " + why);
        });
        // Nothing taken (rejected, skipped, failed open, not applied): nothing to settle.
        if (rejection != null || taken.isEmpty() || !taken.get().allowed() || !taken.get().hasCounts()) {
            return CompletableFuture.completedFuture(null);
        }
        return charges.settle(rule, actualCost);
    }

    /**
     * Turns a rejection into an exception, for code that calls the engine directly.
     *
     * @return this admission, when it allows the request
     * @throws LimitExceededException when it rejects the request, carrying the rejecting rule and its retry-after
     */
    public Admission orThrow() {
        if (rejection != null) throw LimitExceededException.of(rejection, headerStyle);
        return this;
    }

    /** Returns the concurrency permits this request holds; only the first call does anything. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) release.run();
    }
}
