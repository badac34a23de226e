package io.sluice.servlet;

import io.sluice.Sluice;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One {@link Sluice}, hence one Redis client, per application and rules, whichever of the servlet filter and
 * the CDI producer asks first: engines are shared by the exact properties they are built from, among the users
 * of this copy of the class (the application's, in {@code WEB-INF/lib}), so a filter with init-params of its
 * own gets an engine of its own. Each user releases its share; the last one closes the engine. Uses no
 * servlet API.
 */
public final class ApplicationSluice {
    /** The servlet context attribute under which the filter publishes the application's {@link Sluice}. */
    public static final String CONTEXT_ATTRIBUTE = Sluice.class.getName();

    private static final class Engine {
        final Sluice sluice;
        int users;

        Engine(Sluice sluice) {
            this.sluice = sluice;
        }
    }

    /** One user's share of an engine: release it exactly once, when that user stops. */
    public static final class Share {
        private final Map<String, String> key;
        private final Sluice sluice;
        private final AtomicBoolean released = new AtomicBoolean();

        private Share(Map<String, String> key, Sluice sluice) {
            this.key = key;
            this.sluice = sluice;
        }

        public Sluice sluice() {
            return sluice;
        }

        /** Gives the share back; closes the engine if it was the last one. Only the first call counts. */
        public void release() {
            if (!released.compareAndSet(false, true)) return;
            Sluice last = null;
            synchronized (ENGINES) {
                Engine e = ENGINES.get(key);
                if (e != null && e.sluice == sluice && --e.users == 0) {
                    ENGINES.remove(key);
                    last = sluice;
                }
            }
            if (last != null) last.close();
        }
    }

    private static final Map<Map<String, String>, Engine> ENGINES = new HashMap<>();

    private ApplicationSluice() {
    }

    /** A share of the engine built from {@code properties}, built now by {@code build} if there is none yet. */
    public static Share obtain(Map<String, String> properties, Supplier<Sluice> build) {
        Map<String, String> key = Map.copyOf(properties);
        synchronized (ENGINES) {
            Engine e = ENGINES.get(key);
            if (e == null) {
                e = new Engine(build.get());
                ENGINES.put(key, e);
            }
            e.users++;
            return new Share(key, e.sluice);
        }
    }
}
