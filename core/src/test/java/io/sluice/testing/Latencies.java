package io.sluice.testing;

import java.util.Arrays;

/** Recorded durations (thread-safe) and their percentiles, for the figures the failure tests print and bound. */
public final class Latencies {
    private long[] nanos = new long[1024];
    private int count;

    public synchronized void record(long elapsedNanos) {
        if (count == nanos.length) nanos = Arrays.copyOf(nanos, count * 2);
        nanos[count++] = elapsedNanos;
    }

    public synchronized int count() {
        return count;
    }

    /** The given percentile (0-100] in milliseconds, nearest rank; 0 when nothing was recorded. */
    public synchronized double percentileMillis(double percentile) {
        if (count == 0) return 0;
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percentile / 100.0 * count);
        return sorted[Math.max(0, Math.min(count, rank) - 1)] / 1e6;
    }

    public double p50() {
        return percentileMillis(50);
    }

    public double p99() {
        return percentileMillis(99);
    }

    public double maxMillis() {
        return percentileMillis(100);
    }

    /** {@code n=..., p50=... ms, p99=... ms, max=... ms}: the line the tests print. */
    public String summary() {
        return String.format(java.util.Locale.ROOT, "n=%d p50=%.1f ms p99=%.1f ms max=%.1f ms", count(), p50(), p99(), maxMillis());
    }
}
