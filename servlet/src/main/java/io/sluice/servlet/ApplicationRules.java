package io.sluice.servlet;

import io.sluice.ConfigException;
import io.sluice.internal.Log;
import io.sluice.rule.ConfigLoader;
import io.sluice.rule.RulesSource;

import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.WeakHashMap;

/**
 * Where an application's rules come from, for the servlet filter and the CDI producer alike (so that both find
 * the same source and share one engine). Without MicroProfile Config, the rules file as {@link ConfigLoader} finds
 * it. With MicroProfile Config (the API and an implementation on the class path: Quarkus, WildFly, Payara, Open
 * Liberty, Helidon):
 * <ol>
 *   <li>a rules file named explicitly (the filter's {@code config} init-param, else {@code sluice.config} as
 *       MicroProfile Config resolves it: system property, environment variable {@code SLUICE_CONFIG},
 *       {@code application.properties}...) is the whole of the rules; {@code sluice.*} elsewhere in MicroProfile
 *       Config are not read, and a warning names them;</li>
 *   <li>else the {@code sluice.*} of MicroProfile Config ({@link MicroProfileRules}, in the runtime's own order)
 *       over {@code classpath:sluice.properties} when there is one, property by property.</li>
 * </ol>
 * Overrides (the filter's {@code sluice.*} init-params) win over both. Every reload reads MicroProfile Config
 * again. Thread-safe.
 */
public final class ApplicationRules {
    private static final Log LOG = Log.of(ApplicationRules.class);
    private static final String CONFIG_PROVIDER = "org.eclipse.microprofile.config.ConfigProvider";
    private static final String DEFAULT_RESOURCE = ConfigLoader.DEFAULT_LOCATION.substring("classpath:".length());
    /**
     * One source per class loader and overrides: a source of properties is equal only to itself, and the filter and
     * the producer share an engine by equal sources. Weak keys: an undeployed application's loader is not held.
     */
    private static final Map<ClassLoader, Map<Map<String, String>, RulesSource>> MICROPROFILE_SOURCES =
            new WeakHashMap<>();

    private ApplicationRules() {
    }

    /**
     * The application's rules source.
     *
     * @param explicitLocation the rules file the application names in its own configuration (the filter's
     *                         {@code config} init-param), or null
     * @param overrides        properties that win over every source
     * @param loader           the application's class loader
     * @return the source, read again on every reload
     */
    public static RulesSource source(String explicitLocation, Map<String, String> overrides, ClassLoader loader) {
        if (!microProfileConfig(loader)) return ConfigLoader.source(explicitLocation, overrides, loader);
        // Where ConfigLoader looks (its system property read directly: a runtime may snapshot its own), then
        // sluice.config in the rest of MicroProfile Config (application.properties...).
        String location = firstNonBlank(explicitLocation, System.getProperty(ConfigLoader.SYSTEM_PROPERTY),
                System.getenv(ConfigLoader.ENVIRONMENT_VARIABLE));
        if (location == null) location = MicroProfileRules.location(loader);
        if (!isBlank(location)) {
            var ignored = MicroProfileRules.names(loader);
            if (!ignored.isEmpty()) {
                LOG.warn("Sluice reads its rules from {} only: the sluice.* properties of MicroProfile Config {} are"
                        + " not read while a rules file is named", location, ignored);
            }
            return ConfigLoader.source(location, overrides, loader);
        }
        synchronized (MICROPROFILE_SOURCES) {
            return MICROPROFILE_SOURCES.computeIfAbsent(loader, l -> new HashMap<>())
                    .computeIfAbsent(Map.copyOf(overrides), o -> microProfileSource(o, new WeakReference<>(loader)));
        }
    }

    private static RulesSource microProfileSource(Map<String, String> overrides, WeakReference<ClassLoader> loader) {
        return RulesSource.of(() -> {
            ClassLoader l = loader.get();
            if (l == null) throw new IllegalStateException("the application's class loader is gone");
            return properties(overrides, l);
        });
    }

    /** The merged properties: the default file's, MicroProfile Config's over them, the overrides over both. */
    static Map<String, String> properties(Map<String, String> overrides, ClassLoader loader) {
        boolean file = loader.getResource(DEFAULT_RESOURCE) != null;
        Map<String, String> fromConfig = MicroProfileRules.properties(loader);
        if (!file && fromConfig.isEmpty() && overrides.isEmpty()) {
            throw new ConfigException("rules = (none found): expected sluice.* properties in MicroProfile Config"
                    + " (such as application.properties or microprofile-config.properties), "
                    + ConfigLoader.DEFAULT_LOCATION + ", or a rules file named by " + ConfigLoader.SYSTEM_PROPERTY);
        }
        Map<String, String> out = new LinkedHashMap<>();
        if (file) out.putAll(ConfigLoader.source(ConfigLoader.DEFAULT_LOCATION, Map.of(), loader).load());
        out.putAll(fromConfig);
        out.putAll(overrides);
        return out;
    }

    /** Whether MicroProfile Config can be asked: its API, checked before {@link MicroProfileRules} is linked, and an implementation. */
    static boolean microProfileConfig(ClassLoader loader) {
        try {
            Class.forName(CONFIG_PROVIDER, false, ApplicationRules.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        try {
            return MicroProfileRules.available(loader);
        } catch (ServiceConfigurationError | LinkageError e) {
            return false;
        }
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) if (!isBlank(v)) return v;
        return null;
    }
}
