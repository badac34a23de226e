package io.sluice.rule;

import io.sluice.spi.RateRequest;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a rule learns a request's actual cost when its response is complete (the rule property {@code settle}):
 * {@code header:<Response-Header>}, optionally {@code ;keep} to let the header reach the client (by default Sluice
 * takes it out of the response). The request is admitted on its {@code cost}, an estimate, then charged the
 * actual cost: the difference is taken, past the limit if need be, or given back. Immutable and thread-safe.
 *
 * @param header     the response header carrying the actual cost; empty when the rule settles only from code
 * @param keepHeader whether the header is sent to the client too
 */
public record Settle(Optional<String> header, boolean keepHeader) {

    /** A rule without {@code settle}: its requests are charged their {@code cost}, unless code settles them. */
    public static final Settle NONE = new Settle(Optional.empty(), false);
    /** The form the rules file takes, for error messages. */
    public static final String EXPECTED = "header:<Response-Header> such as header:X-Tokens-Used, optionally followed by ;keep";
    /**
     * One settlement charges at most this many periods of the rule's permits: a broken or hostile header value puts a
     * key in debt for a bounded time, and the scripts' times stay exact.
     */
    public static final long MAX_PERIODS_OWED = RatePolicy.MAX_PERIODS_AHEAD;
    /** An HTTP token (RFC 9110), at most 64 characters. */
    private static final Pattern FORM = Pattern.compile("header:([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64})\\s*(;\\s*keep)?",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern DIGITS = Pattern.compile("\\d{1,4000}");
    /** Longer numbers than this do not fit a long: huge, and clamped as such. */
    private static final int LONGEST_EXACT = 18;

    /** {@return whether the rule settles from a response header} */
    public boolean fromHeader() {
        return header.isPresent();
    }

    /**
     * Parses the rules file's value.
     *
     * @param text the value of a {@code settle} property
     * @return the settle source, or empty when the text is not {@link #EXPECTED}
     */
    public static Optional<Settle> parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) return Optional.empty();
        return Optional.of(new Settle(Optional.of(m.group(1)), m.group(2) != null));
    }

    /**
     * Why a rule cannot be settled, or empty when it can: it needs a rate counted by an algorithm that can take
     * permits past its limit ({@code token-bucket}, {@code fixed-window}, {@code sliding-window}), hard throttling
     * (soft and elastic decide past the limit already), no fixed {@code prefetch} (a server's stock would not see the
     * debt; an automatic one is handed back at each settlement)
     * and {@code count=all} (a request is charged what it reports, or given back by its outcome: not both).
     *
     * @param rule the rule
     * @return the expected form the rule misses, for an error message
     */
    public static Optional<String> refusal(Rule rule) {
        if (!rule.limitsRate()) return Optional.of("settle only on a rule with rate");
        RatePolicy p = rule.ratePolicy();
        if (!p.algorithm().settleable()) {
            return Optional.of("settle only with algorithm=token-bucket, fixed-window or sliding-window (" + p.algorithm()
                    + " cannot take permits past its limit)");
        }
        if (p.throttling() != Throttling.HARD) return Optional.of("settle only with throttling=hard");
        if (p.prefetch().fixed()) return Optional.of("settle only without a fixed prefetch");
        if (!rule.count().all()) return Optional.of("settle only with count=all");
        return Optional.empty();
    }

    /**
     * The actual cost a response header reports: a whole number, or empty when the value is missing, negative or not a
     * number (the request then keeps its estimate: a broken value never gives capacity back). A number too long for a
     * {@code long} is {@link Long#MAX_VALUE}, which a settlement clamps ({@link #mostOwed}).
     *
     * @param value the header's value, null when absent
     * @return the reported cost
     */
    public static OptionalLong reported(String value) {
        if (value == null) return OptionalLong.empty();
        String v = value.trim();
        if (!DIGITS.matcher(v).matches()) return OptionalLong.empty();
        if (v.length() > LONGEST_EXACT) return OptionalLong.of(Long.MAX_VALUE);
        return OptionalLong.of(Long.parseLong(v));
    }

    /**
     * The most one settlement of {@code rule} charges: {@link #MAX_PERIODS_OWED} periods of its permits, and never
     * above {@link RateRequest#MAX_COST}.
     *
     * @param rule a rate rule (as the request's plan limits it)
     * @return the cap of an actual cost
     */
    public static long mostOwed(Rule rule) {
        long permits = rule.rate().orElseThrow().permits();
        long most = permits > RateRequest.MAX_COST / MAX_PERIODS_OWED ? RateRequest.MAX_COST : permits * MAX_PERIODS_OWED;
        return Math.min(most, RateRequest.MAX_COST);
    }

    @Override
    public String toString() {
        return header.map(h -> "header:" + h + (keepHeader ? ";keep" : "")).orElse("none");
    }
}
