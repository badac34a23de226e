package io.sluice.rule;

import java.util.Optional;

/**
 * A rule's {@code prefetch}: how many permits a server takes from a key ahead of need. {@code auto} (the default
 * where it is allowed) sizes each key's stock from that key's demand on the server, and takes none for a quiet key or
 * a small limit; a number is a fixed size; {@code off} takes none. Immutable.
 *
 * @param auto    whether the size follows each key's demand
 * @param permits the fixed size; 0 when {@code auto} or off
 */
public record PrefetchSize(boolean auto, long permits) {
    /** Nothing taken ahead. */
    public static final PrefetchSize OFF = new PrefetchSize(false, 0);
    /** Sized by each key's demand. */
    public static final PrefetchSize AUTO = new PrefetchSize(true, 0);
    /** What the parser's message says a value must be. */
    static final String EXPECTED = "auto, off, or a whole number of permits from 1 to " + Rate.MAX_PERMITS
            + ", fewer than the rate's, such as 100";

    /**
     * Checks the numbers.
     *
     * @param auto    whether the size follows demand
     * @param permits the fixed size
     */
    public PrefetchSize {
        if (permits < 0 || auto && permits != 0) throw new IllegalArgumentException("prefetch " + permits + (auto ? " with auto" : ""));
    }

    /** A fixed size of {@code permits}. */
    public static PrefetchSize of(long permits) {
        return permits == 0 ? OFF : new PrefetchSize(false, permits);
    }

    /** Whether a server may take permits ahead at all. */
    public boolean on() {
        return auto || permits > 0;
    }

    /** Whether the size is fixed by the rule ({@code prefetch=<number>}). */
    public boolean fixed() {
        return !auto && permits > 0;
    }

    /** {@code auto}, {@code off} or a number of permits from 1 to {@link Rate#MAX_PERMITS}; empty for anything else. */
    static Optional<PrefetchSize> parse(String s) {
        String v = s.trim();
        if (v.equalsIgnoreCase("auto")) return Optional.of(AUTO);
        if (v.equalsIgnoreCase("off")) return Optional.of(OFF);
        if (!v.matches("\\d{1,19}")) return Optional.empty();
        try {
            long n = Long.parseLong(v);
            return n >= 1 && n <= Rate.MAX_PERMITS ? Optional.of(of(n)) : Optional.empty();
        } catch (NumberFormatException tooLong) {
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return auto ? "auto" : permits == 0 ? "off" : Long.toString(permits);
    }
}
