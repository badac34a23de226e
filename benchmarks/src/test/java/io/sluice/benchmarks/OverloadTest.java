package io.sluice.benchmarks;

import io.sluice.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Overload}'s flags, and its exits on bad input: every one with the reason and a non-zero status, none hanging. */
class OverloadTest {
    @Test
    void flagsHaveTheirDefaults() {
        Overload.Options o = Overload.Options.parse();
        assertThat(o).isEqualTo(new Overload.Options(32, 6, "20000/1s", "10s", 1, List.of("sliding-log"), List.of("auto")));
        assertThat(Overload.Options.parse("--prefetch", "auto, off", "--algorithm", "fixed-window,token-bucket", "--servers", "3"))
                .satisfies(p -> {
                    assertThat(p.prefetches()).containsExactly("auto", "off");
                    assertThat(p.algorithms()).containsExactly("fixed-window", "token-bucket");
                    assertThat(p.servers()).isEqualTo(3);
                });
    }

    @Test
    void aBadFlagIsNamedWithItsValueAndWhatItExpects() {
        assertThatThrownBy(() -> Overload.Options.parse("--servers", "x")).hasMessage("--servers x: expected a whole number from 1 to 64");
        assertThatThrownBy(() -> Overload.Options.parse("--callers", "0")).hasMessage("--callers 0: expected a whole number from 1 to 4096");
        assertThatThrownBy(() -> Overload.Options.parse("--seconds", "86401")).hasMessage("--seconds 86401: expected a whole number from 1 to 86400");
        assertThatThrownBy(() -> Overload.Options.parse("--serverz", "3")).hasMessageStartingWith("--serverz: unknown flag, expected one of --callers,");
        assertThatThrownBy(() -> Overload.Options.parse("--seconds")).hasMessage("--seconds: expected a value after it");
        assertThatThrownBy(() -> Overload.Options.parse("seconds", "3")).hasMessage("seconds: expected a flag such as --callers");
        assertThatThrownBy(() -> Overload.Options.parse("--seconds", "3", "--seconds", "4")).hasMessage("--seconds: given twice");
        assertThatThrownBy(() -> Overload.Options.parse("--prefetch", "auto,")).hasMessage("--prefetch auto,: expected a comma-separated list without empty items");
    }

    @Test
    void aRuleSluiceRefusesIsFoundBeforeAnythingOpens() {
        assertThatThrownBy(() -> Overload.Options.parse("--rate", "10000/1x").check()).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.rules.hot.rate = \"10000/1x\": expected <permits>/<period>");
        assertThatThrownBy(() -> Overload.Options.parse("--algorithm", "sliding-log,fixed-windows").check()).isInstanceOf(ConfigException.class)
                .hasMessageContaining("sluice.rules.hot.algorithm = \"fixed-windows\"");
        assertThat(Overload.Options.parse("--rate", "300/10s", "--prefetch", "auto,off").check().permits()).isEqualTo(300);
    }

    @Test
    void badInputPrintsTheReasonAndExitsWithTwo() throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Overload.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--servers", "2", "--rate", "10000/1x");
        assertThat(status).isEqualTo(Overload.BAD_INPUT);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("Overload: --rate, --timeout, --algorithm and --prefetch make a rule Sluice refuses")
                .contains("sluice.rules.hot.rate = \"10000/1x\"");
        err.reset();
        assertThat(Overload.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--callers", "many")).isEqualTo(Overload.BAD_INPUT);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Overload: --callers many: expected a whole number from 1 to 4096"
                + System.lineSeparator() + Overload.USAGE + System.lineSeparator());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theJvmExitsOnARefusedRuleAndOnARedisThatDoesNotAnswer() throws IOException, InterruptedException {
        // Each in a JVM of its own: before, the refused rule left Redisson's threads (not daemons) keeping the JVM alive.
        assertThat(exit(List.of(), "--servers", "2", "--rate", "10000/1x")).isEqualTo(Overload.BAD_INPUT);
        // Port 1 of the loopback answers nothing: the run fails after the client was asked for, and still exits.
        assertThat(exit(List.of("-Dsluice.bench.redis=redis://127.0.0.1:1"), "--seconds", "1")).isEqualTo(Overload.FAILED);
    }

    private static int exit(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        Path log = Files.createTempFile("overload", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            pb.command().addAll(jvmOptions);
            pb.command().addAll(List.of("-cp", System.getProperty("java.class.path"), Overload.class.getName()));
            pb.command().addAll(List.of(args));
            Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("Overload " + String.join(" ", args) + " did not exit within 90 s:\n" + Files.readString(log));
            }
            return p.exitValue();
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
