package io.sluice.internal;

import io.sluice.testing.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** An outage or an attack logs one line per topic per interval, however many events it causes. */
class ThrottledLogTest {
    private final RecordingLogger recorder = new RecordingLogger();
    private final ManualTicker ticker = new ManualTicker();

    @Test
    void oneLinePerTopicPerIntervalWithTheCountHeldBack() {
        ThrottledLog log = new ThrottledLog(new Log(recorder), 10_000, ticker);
        for (int i = 0; i < 10_000; i++) log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines()).containsExactly("Backend failed for rule 'a'");
        log.warn("backend:b", "Backend failed for rule 'b'");
        assertThat(lines()).hasSize(2);
        ticker.advance(Duration.ofMillis(9_999));
        log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines()).hasSize(2);
        ticker.advance(Duration.ofMillis(1));
        log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines()).hasSize(3);
        assertThat(lines().get(2)).isEqualTo("Backend failed for rule 'a' (10000 similar events not logged)");
    }

    @Test
    void messagesWithBracesAndApostrophesComeOutAsWritten() {
        ThrottledLog log = new ThrottledLog(new Log(recorder), 10_000, ticker);
        log.warn("dry-run:x", "Dry-run rule 'x' would reject key {0} '{}'");
        assertThat(lines()).containsExactly("Dry-run rule 'x' would reject key {0} '{}'");
        assertThat(recorder.records()).extracting(RecordingLogger.Record::level).containsExactly(System.Logger.Level.WARNING);
    }

    @Test
    void placeholdersAreFilledInOrderAndExtraOnesKept() {
        assertThat(Log.format("filter '{}' started with {} rules", "f", 3)).isEqualTo("filter 'f' started with 3 rules");
        assertThat(Log.format("{} and {}", "one")).isEqualTo("one and {}");
        assertThat(Log.format("no placeholder", "ignored")).isEqualTo("no placeholder");
    }

    private List<String> lines() {
        return recorder.records().stream().map(RecordingLogger.Record::message).toList();
    }
}
