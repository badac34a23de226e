package io.sluice;

import io.sluice.engine.Deadlines;
import io.sluice.engine.Ticker;

import java.util.Map;

/**
 * A Sluice whose deadlines pass on real time as a machine with CPU to spare would see them: none of the allowances
 * for a busy server ({@link Deadlines}: only time the sweeper saw counts, a saturated machine waits on), which on a
 * loaded test machine keep a call to a Redis 300 ms away waiting until it answers. For tests whose subject is a slow
 * or frozen Redis, not a busy server; the allowances have their own tests ({@code DeadlinesTest}, {@code BusyServerTest}).
 */
public final class SpareCpuSluice {
    private SpareCpuSluice() {
    }

    /** As {@link Sluice#fromProperties(Map)}, its deadlines on the JVM's monotonic clock without the busy allowances. */
    public static Sluice fromProperties(Map<String, String> properties) {
        // Any ticker but Ticker.SYSTEM gets deadlines on its own time (Deadlines.onTestTime): here, real time.
        Ticker realTime = System::nanoTime;
        return Sluice.builder().properties(properties).ticker(realTime).build();
    }
}
