package io.sluice.rule;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

/** Where an engine's rules come from, so a reload reads the same file again; shared engines are found by it. */
class RulesSourceTest {
    private static final UnaryOperator<String> NONE = name -> null;

    @TempDir
    Path dir;

    @Test
    void theLocationIsResolvedOnceAndTheFileReadAgainOnEachLoad() throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, "sluice.rules.r.rate=1/s\n");
        Map<String, String> sysprops = new HashMap<>(Map.of(ConfigLoader.SYSTEM_PROPERTY, "file:" + file));
        RulesSource source = ConfigLoader.source(null, Map.of("sluice.headers", "none"), null, sysprops::get, NONE);
        sysprops.clear();
        assertThat(source.load()).containsOnly(entry("sluice.rules.r.rate", "1/s"), entry("sluice.headers", "none"));
        Files.writeString(file, "sluice.rules.r.rate=2/s\n");
        assertThat(source.load()).containsEntry("sluice.rules.r.rate", "2/s");
        assertThat(source.file()).contains(file);
        assertThat(source.pollable()).isTrue();
        Files.delete(file);
        assertThatThrownBy(source::load).isInstanceOf(ConfigException.class).hasMessageContaining("expected an existing file");
    }

    @Test
    void sourcesOfTheSameFileAndOverridesAreEqualAndClasspathOnesAreNotPolled() {
        RulesSource byDefault = ConfigLoader.source(null, Map.of(), null, NONE, NONE);
        RulesSource explicit = ConfigLoader.source(ConfigLoader.DEFAULT_LOCATION, Map.of(), null, NONE, NONE);
        assertThat(byDefault).isEqualTo(explicit).hasSameHashCodeAs(explicit);
        assertThat(byDefault.pollable()).isFalse();
        assertThat(ConfigLoader.source(null, Map.of("sluice.headers", "none"), null, NONE, NONE)).isNotEqualTo(byDefault);
        assertThat(ConfigLoader.source("/etc/a.properties", Map.of(), null, NONE, NONE).file()).contains(Path.of("/etc/a.properties"));
        RulesSource supplied = RulesSource.of(() -> Map.of("sluice.rules.r.rate", "1/s"));
        assertThat(supplied.pollable()).isTrue();
        assertThat(supplied).isNotEqualTo(RulesSource.of(() -> Map.of("sluice.rules.r.rate", "1/s")));
    }
}
