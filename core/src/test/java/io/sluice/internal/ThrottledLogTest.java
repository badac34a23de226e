package io.sluice.internal;

import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** An outage or an attack logs one line per topic per interval, however many events it causes. */
class ThrottledLogTest {
    private final List<String> lines = new ArrayList<>();
    private final MutableClock clock = new MutableClock(1_000_000);

    /** A logger that records WARN messages: the only level ThrottledLog uses. */
    private Logger recorder() {
        return (Logger) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Logger.class}, (proxy, method, args) -> {
            if (method.getName().equals("isWarnEnabled")) return true;
            if (method.getName().equals("warn") && args.length == 1) lines.add((String) args[0]);
            return null;
        });
    }

    @Test
    void oneLinePerTopicPerIntervalWithTheCountHeldBack() {
        ThrottledLog log = new ThrottledLog(recorder(), 10_000, clock);
        for (int i = 0; i < 10_000; i++) log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines).containsExactly("Backend failed for rule 'a'");
        log.warn("backend:b", "Backend failed for rule 'b'");
        assertThat(lines).hasSize(2);
        clock.advance(Duration.ofMillis(9_999));
        log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines).hasSize(2);
        clock.advance(Duration.ofMillis(1));
        log.warn("backend:a", "Backend failed for rule 'a'");
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).isEqualTo("Backend failed for rule 'a' (10000 similar events not logged)");
    }
}
