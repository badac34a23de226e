package io.sluice.engine;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;

/**
 * Whether this machine has no CPU to spare: its CPUs busy at least {@link #SATURATED_CPU_LOAD} of the time since the
 * last look, or, where the JVM cannot tell, a run queue (load average) of at least one runnable thread per core.
 * Then a call that waits has waited for a CPU as much as for its store: the client's I/O thread, and a Redis on the
 * same machine, take their turn with every other thread. Looked at once per {@link #LOOK_EVERY_MILLIS} at most, on the
 * monotonic {@link Ticker}. Thread-safe.
 */
public final class CpuSaturation implements BooleanSupplier {
    /** A machine whose CPUs are this busy runs its threads late. */
    static final double SATURATED_CPU_LOAD = 0.9;
    /** How often the CPU load is read at most (a read is a look at /proc on Linux, not free). */
    static final long LOOK_EVERY_MILLIS = 100;

    private final Ticker ticker;
    private final int cores = Runtime.getRuntime().availableProcessors();
    private volatile boolean saturated;
    private volatile long lastLookMillis;
    private volatile boolean looked;

    public CpuSaturation(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public boolean getAsBoolean() {
        long now = ticker.millis();
        if (looked && now - lastLookMillis < LOOK_EVERY_MILLIS) return saturated;
        synchronized (this) {
            if (!looked || now - lastLookMillis >= LOOK_EVERY_MILLIS) {
                saturated = look();
                lastLookMillis = now;
                looked = true;
            }
            return saturated;
        }
    }

    private boolean look() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof OperatingSystemMXBean hotspot) {
            double load = hotspot.getCpuLoad();
            if (load >= 0) return load >= SATURATED_CPU_LOAD;
        }
        return os.getSystemLoadAverage() >= cores;
    }
}
