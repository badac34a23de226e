package io.sluice.examples;

import io.sluice.Sluice;
import io.sluice.cdi.Limited;
import io.sluice.filter.SluiceFilter;
import io.sluice.servlet.ServletRequestView;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every Sluice jar a user puts on the module path is named by its manifest's {@code Automatic-Module-Name},
 * not by its file name (which would give {@code sluice.core}). This module sees the jars as a user does: in a
 * reactor build that reached {@code package} (such as {@code mvn verify}), its dependencies are the built jars.
 */
class ModuleNamesTest {

    @Test
    void everyJarCarriesItsAutomaticModuleName() throws Exception {
        Map<Class<?>, String> expected = new LinkedHashMap<>();
        expected.put(Sluice.class, "io.sluice.core");
        expected.put(ServletRequestView.class, "io.sluice.servlet");
        expected.put(SluiceFilter.class, "io.sluice.filter");
        expected.put(Limited.class, "io.sluice.cdi");

        Map<Class<?>, String> found = new LinkedHashMap<>();
        for (Class<?> type : expected.keySet()) {
            Path jar = jarOf(type);
            assumeTrue(jar != null, () -> type.getName() + " comes from classes, not a jar: run mvn verify");
            found.put(type, moduleName(jar));
        }
        assertThat(found).containsExactlyEntriesOf(expected);
    }

    /** The jar a class was loaded from; for target/classes, the main jar built beside it, if any. */
    private static Path jarOf(Class<?> type) throws URISyntaxException, IOException {
        Path source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isRegularFile(source)) {
            return source;
        }
        Path target = source.getParent();
        try (Stream<Path> files = Files.list(target)) {
            List<Path> jars = files
                    .filter(f -> f.getFileName().toString().endsWith(".jar"))
                    .filter(f -> !f.getFileName().toString().matches(".*-(tests|sources|javadoc)\\.jar"))
                    .collect(Collectors.toList());
            return jars.size() == 1 ? jars.get(0) : null;
        }
    }

    private static String moduleName(Path jar) {
        List<ModuleReference> modules = List.copyOf(ModuleFinder.of(jar).findAll());
        assertThat(modules).as("modules in %s", jar).hasSize(1);
        return modules.get(0).descriptor().name();
    }
}
