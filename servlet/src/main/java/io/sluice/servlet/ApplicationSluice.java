package io.sluice.servlet;

import io.sluice.Sluice;
import io.sluice.rule.RulesSource;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One {@link Sluice}, hence one Redis client, per application and rules, whichever of the servlet filter and
 * the CDI producer asks first: engines are shared by where their rules come from (a
 * {@link io.sluice.rule.RulesSource}: the rules file and the overrides, so that a reloaded file still finds
 * the same engine) or by the exact properties they are built from, among the users of this copy of the class
 * (the application's, in {@code WEB-INF/lib}), so a filter with init-params of its own gets an engine of its own. Each user releases its share; the last one closes the engine. Uses no
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
        private final Object key;
        private final Sluice sluice;
        private final AtomicBoolean released = new AtomicBoolean();

        private Share(Object key, Sluice sluice) {
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

    private static final Map<Object, Engine> ENGINES = new HashMap<>();
    /** Per rules source: who needs which rules ({@code @Limited} usages), applied to its engine whenever it exists. */
    private static final Map<Object, Map<String, List<String>>> REQUIRED = new HashMap<>();

    private ApplicationSluice() {
    }

    /** A share of the engine built from {@code properties}, built now by {@code build} if there is none yet. */
    public static Share obtain(Map<String, String> properties, Supplier<Sluice> build) {
        return share(Map.copyOf(properties), build);
    }

    /** A share of the engine whose rules come from {@code source}, built now by {@code build} if there is none yet. */
    public static Share obtain(RulesSource source, Supplier<Sluice> build) {
        return share(source, build);
    }

    /**
     * Records that the engine of {@code source} must keep rules ({@link Sluice#requireRules}): at once when it
     * exists, else as soon as it is built. The CDI extension calls it at deployment with every {@code @Limited}.
     *
     * @param source where the engine's rules come from
     * @param usages who needs them ({@code @Limited on com.x.Foo.bar}) and the rules each names
     */
    public static void require(RulesSource source, Map<String, List<String>> usages) {
        Sluice existing;
        synchronized (ENGINES) {
            REQUIRED.computeIfAbsent(source, k -> new LinkedHashMap<>()).putAll(usages);
            Engine e = ENGINES.get(source);
            existing = e == null ? null : e.sluice;
        }
        if (existing != null) usages.forEach(existing::requireRules);
    }

    /**
     * Applies what {@link #require} recorded for {@code source} to an engine built without this class's sharing
     * (around the application's own Redisson client).
     *
     * @param source where the engine's rules come from
     * @param sluice the engine
     */
    public static void applyRequired(RulesSource source, Sluice sluice) {
        Map<String, List<String>> usages;
        synchronized (ENGINES) {
            usages = new LinkedHashMap<>(REQUIRED.getOrDefault(source, Map.of()));
        }
        usages.forEach(sluice::requireRules);
    }

    private static Share share(Object key, Supplier<Sluice> build) {
        synchronized (ENGINES) {
            Engine e = ENGINES.get(key);
            if (e == null) {
                e = new Engine(build.get());
                REQUIRED.getOrDefault(key, Map.of()).forEach(e.sluice::requireRules);
                ENGINES.put(key, e);
            }
            e.users++;
            return new Share(key, e.sluice);
        }
    }
}
