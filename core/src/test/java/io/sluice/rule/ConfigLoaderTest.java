package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

class ConfigLoaderTest {
    private static final UnaryOperator<String> NONE = name -> null;

    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }

    /** A class loader that sees only {@code root}, so that the default location is under the test's control. */
    private static ClassLoader classpath(Path root) throws IOException {
        return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
    }

    private static UnaryOperator<String> only(String name, String value) {
        return n -> n.equals(name) ? value : null;
    }

    /** Four locations, each with its own key-prefix; the one that wins is the one that was read. */
    private ClassLoader fourLocations() throws IOException {
        write("explicit.properties", "sluice.key-prefix=explicit\n");
        write("sysprop.properties", "sluice.key-prefix=sysprop\n");
        write("env.properties", "sluice.key-prefix=env\n");
        Path cp = Files.createDirectories(dir.resolve("cp"));
        Files.writeString(cp.resolve("sluice.properties"), "sluice.key-prefix=default\n");
        return classpath(cp);
    }

    @Test
    void explicitLocationWinsOverEverything() throws IOException {
        ClassLoader cl = fourLocations();
        Map<String, String> m = ConfigLoader.load(dir.resolve("explicit.properties").toString(), Map.of(), cl,
                only("sluice.config", dir.resolve("sysprop.properties").toString()),
                only("SLUICE_CONFIG", dir.resolve("env.properties").toString()));
        assertThat(m).containsExactly(entry("sluice.key-prefix", "explicit"));
    }

    @Test
    void systemPropertyWinsOverEnvironmentAndDefault() throws IOException {
        ClassLoader cl = fourLocations();
        Map<String, String> m = ConfigLoader.load(null, Map.of(), cl,
                only("sluice.config", dir.resolve("sysprop.properties").toString()),
                only("SLUICE_CONFIG", dir.resolve("env.properties").toString()));
        assertThat(m).containsExactly(entry("sluice.key-prefix", "sysprop"));
    }

    @Test
    void environmentWinsOverDefault() throws IOException {
        ClassLoader cl = fourLocations();
        Map<String, String> m = ConfigLoader.load(null, Map.of(), cl, NONE,
                only("SLUICE_CONFIG", dir.resolve("env.properties").toString()));
        assertThat(m).containsExactly(entry("sluice.key-prefix", "env"));
    }

    @Test
    void classpathDefaultIsTheLastResort() throws IOException {
        ClassLoader cl = fourLocations();
        assertThat(ConfigLoader.load(null, Map.of(), cl, NONE, NONE))
                .containsExactly(entry("sluice.key-prefix", "default"));
    }

    @Test
    void blankLocationsAreSkipped() throws IOException {
        ClassLoader cl = fourLocations();
        Map<String, String> m = ConfigLoader.load("  ", Map.of(), cl, only("sluice.config", ""),
                only("SLUICE_CONFIG", dir.resolve("env.properties").toString()));
        assertThat(m).containsExactly(entry("sluice.key-prefix", "env"));
    }

    @Test
    void readsTheRealSystemPropertyNameAndEnvironmentVariableName() {
        assertThat(ConfigLoader.SYSTEM_PROPERTY).isEqualTo("sluice.config");
        assertThat(ConfigLoader.ENVIRONMENT_VARIABLE).isEqualTo("SLUICE_CONFIG");
        assertThat(ConfigLoader.DEFAULT_LOCATION).isEqualTo("classpath:sluice.properties");
    }

    @Test
    void fileAndPlainPathsAreRead() throws IOException {
        Path f = write("rules.properties", "# a comment\nsluice.rules.a.rate=10/1h\nother=x\n");
        ClassLoader cl = classpath(dir);
        assertThat(ConfigLoader.load("file:" + f, Map.of(), cl, NONE, NONE))
                .containsOnly(entry("sluice.rules.a.rate", "10/1h"), entry("other", "x"));
        assertThat(ConfigLoader.load(f.toString(), Map.of(), cl, NONE, NONE))
                .containsOnly(entry("sluice.rules.a.rate", "10/1h"), entry("other", "x"));
        assertThat(ConfigLoader.load("  " + f + "  ", Map.of(), cl, NONE, NONE))
                .containsOnly(entry("sluice.rules.a.rate", "10/1h"), entry("other", "x"));
    }

    @Test
    void filesAreReadAsUtf8() throws IOException {
        Path f = write("utf8.properties", "sluice.key-prefix=caf\u00e9\n");
        assertThat(ConfigLoader.load(f.toString(), Map.of(), null, NONE, NONE))
                .containsExactly(entry("sluice.key-prefix", "caf\u00e9"));
    }

    @Test
    void classpathLocationsAreRead() {
        ClassLoader cl = getClass().getClassLoader();
        Map<String, String> expected = Map.of("sluice.key-prefix", "from-classpath", "sluice.rules.cp.rate", "1/s");
        assertThat(ConfigLoader.load("classpath:io/sluice/rule/loader-test.properties", Map.of(), cl, NONE, NONE))
                .isEqualTo(expected);
        assertThat(ConfigLoader.load("classpath:/io/sluice/rule/loader-test.properties", Map.of(), cl, NONE, NONE))
                .isEqualTo(expected);
        // A null class loader means Sluice's own.
        assertThat(ConfigLoader.load("classpath:io/sluice/rule/loader-test.properties", Map.of(), null, NONE, NONE))
                .isEqualTo(expected);
    }

    @Test
    void overridesWinOverTheFile() throws IOException {
        Path f = write("rules.properties", "sluice.key-prefix=file\nsluice.headers=ietf\n");
        Map<String, String> m = ConfigLoader.load(f.toString(),
                Map.of("sluice.key-prefix", "override", "sluice.rules.x.rate", "1/s"), null, NONE, NONE);
        assertThat(m).containsOnly(entry("sluice.key-prefix", "override"), entry("sluice.headers", "ietf"),
                entry("sluice.rules.x.rate", "1/s"));
    }

    @Test
    void overridesAloneAreEnoughWhenNoFileExists() throws IOException {
        ClassLoader empty = classpath(Files.createDirectories(dir.resolve("empty")));
        assertThat(ConfigLoader.load(null, Map.of("sluice.rules.x.rate", "1/s"), empty, NONE, NONE))
                .containsExactly(entry("sluice.rules.x.rate", "1/s"));
    }

    @Test
    void missingExplicitFileNamesTheLocation() {
        String location = "file:" + dir.resolve("missing.properties");
        assertThatThrownBy(() -> ConfigLoader.load(location, Map.of("sluice.headers", "all"), null, NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly("rules file = \"" + location
                        + "\": expected an existing file, as classpath:PATH, file:PATH or a plain file path"));
    }

    @Test
    void missingLocationFromSystemPropertyOrEnvironmentIsAnErrorNotAFallback() throws IOException {
        ClassLoader cl = fourLocations();
        String missing = dir.resolve("nope.properties").toString();
        String expected = "rules file = \"" + missing
                + "\": expected an existing file, as classpath:PATH, file:PATH or a plain file path";
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), cl, only("sluice.config", missing), NONE))
                .isInstanceOf(ConfigException.class).hasMessage("Invalid Sluice configuration: " + expected);
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), cl, NONE, only("SLUICE_CONFIG", missing)))
                .isInstanceOf(ConfigException.class).hasMessage("Invalid Sluice configuration: " + expected);
    }

    @Test
    void missingClasspathResourceNamesTheLocation() {
        assertThatThrownBy(() -> ConfigLoader.load("classpath:no/such.properties", Map.of(), null, NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly(
                        "rules file = \"classpath:no/such.properties\": expected an existing file, as classpath:PATH, "
                                + "file:PATH or a plain file path"));
    }

    @Test
    void nothingFoundAndNoOverridesIsAnError() throws IOException {
        ClassLoader empty = classpath(Files.createDirectories(dir.resolve("empty")));
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), empty, NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly(
                        "rules file = (none found): expected classpath:sluice.properties, or a location in the system "
                                + "property sluice.config, the environment variable SLUICE_CONFIG or the filter "
                                + "init-param config"));
    }

    @Test
    void malformedFileIsAnErrorNamingTheLocation() throws IOException {
        Path f = write("bad.properties", "sluice.key-prefix=\\uZZZZ\n");
        assertThatThrownBy(() -> ConfigLoader.load(f.toString(), Map.of(), null, NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactly(
                        "rules file = \"" + f + "\": expected a readable properties file (IllegalArgumentException)"));
    }

    @Test
    void publicOverloadReadsAnExplicitLocation() throws IOException {
        Path f = write("rules.properties", "sluice.headers=none\n");
        assertThat(ConfigLoader.load(f.toString(), Map.of(), null)).containsExactly(entry("sluice.headers", "none"));
    }

    @Test
    void valuesAreReturnedAsWrittenForTheParserToResolve() throws IOException {
        Path f = write("rules.properties", "sluice.key-prefix=${PREFIX:p}\n");
        assertThat(ConfigLoader.load(f.toString(), Map.of("sluice.headers", "${H}"), null, NONE, only("PREFIX", "x")))
                .containsOnly(entry("sluice.key-prefix", "${PREFIX:p}"), entry("sluice.headers", "${H}"));
    }
}
