package io.sluice;

import io.sluice.rule.HeaderStyle;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The verdict of every rule that applied to one request, and the concurrency permits it holds. Close
 * it when the request really ends (for an async request: when it completes): that returns the permits,
 * exactly once however often it is called. A rejected admission holds no permits.
 *
 * <p>Thread-safe.
 */
public final class Admission implements AutoCloseable {
    private static final Admission NONE = new Admission(List.of(), null, () -> { });

    private final List<Decision> decisions;
    private final Decision rejection;
    private final Runnable release;
    private final HeaderStyle headerStyle;
    private final AtomicBoolean closed = new AtomicBoolean();

    Admission(List<Decision> decisions, Decision rejection, Runnable release) {
        this(decisions, rejection, release, HeaderStyle.ALL);
    }

    /** {@code headerStyle}: the headers a rejection's {@link LimitExceededException} asks for. */
    Admission(List<Decision> decisions, Decision rejection, Runnable release, HeaderStyle headerStyle) {
        this.decisions = List.copyOf(decisions);
        this.rejection = rejection;
        this.release = release;
        this.headerStyle = headerStyle;
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
     * A rejected request, as the engine answers it: it holds nothing.
     *
     * @param decisions   the decisions made before and including the rejection
     * @param rejection   the decision that rejected it
     * @param headerStyle the headers its {@link LimitExceededException} asks for
     * @return the admission
     */
    public static Admission rejected(List<Decision> decisions, Decision rejection, HeaderStyle headerStyle) {
        return new Admission(decisions, Objects.requireNonNull(rejection), () -> { }, headerStyle);
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
