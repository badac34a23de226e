package io.sluice.micrometer;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is optional: with it absent from the class path, Sluice loads and decides as before, and the one
 * class that imports Micrometer is never loaded. The engine runs in a class loader of its own over this test's
 * class path minus every Micrometer jar, parented by the platform loader (so nothing leaks in from the
 * application class loader that has Micrometer).
 */
class WithoutMicrometerTest {
    /** A loader that can say which classes it has loaded. */
    static final class Isolated extends URLClassLoader {
        Isolated(URL[] urls) {
            super("without-micrometer", urls, ClassLoader.getPlatformClassLoader());
        }

        boolean loaded(String name) {
            return findLoadedClass(name) != null;
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theEngineLoadsAndDecidesWithoutMicrometer() throws Exception {
        List<URL> urls = new ArrayList<>();
        int dropped = 0;
        for (String entry : classPath().split(File.pathSeparator)) {
            if (entry.isBlank()) continue;
            if (entry.replace('\\', '/').contains("/io/micrometer/")) {
                dropped++;
                continue;
            }
            urls.add(url(entry));
        }
        assertThat(dropped).as("the test class path had Micrometer to leave out").isPositive();

        try (Isolated loader = new Isolated(urls.toArray(URL[]::new))) {
            Class<?> probe = Class.forName(NoMicrometerProbe.class.getName(), true, loader);
            assertThat(probe.getClassLoader()).isSameAs(loader);
            List<String> seen = ((Callable<List<String>>) probe.getDeclaredConstructor().newInstance()).call();

            assertThat(seen).containsExactly(
                    "micrometer present: false",
                    "posts allowed", "posts allowed", "posts rejected",
                    "slots true false",
                    "connected true",
                    "meterRegistry(java.lang.Object): Micrometer (io.micrometer.core.instrument.MeterRegistry)"
                            + " is not visible to Sluice's class loader");
            assertThat(loader.loaded("io.sluice.Sluice")).isTrue();
            assertThat(loader.loaded("io.sluice.micrometer.Micrometer")).isTrue();
            assertThat(loader.loaded("io.sluice.micrometer.SluiceMeters")).as("the Micrometer bridge").isFalse();
        }
    }

    /** Surefire may hide the real class path behind a manifest-only jar; it publishes it here. */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static URL url(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }
}
