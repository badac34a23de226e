package io.sluice.memory;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A token bucket's whole burst at once, whatever its interval: {@code period / limit} is rarely a whole number of
 * microseconds (3/10s: 3 333 333.3 us), and a TAT rounded up to one at each decision lost the burst's last token
 * (3/10s admitted 2 at once, 7/1m 6). The script computes the same ({@code ScriptMatchesModelTest}).
 */
class TokenBucketBurstTest {
    private static final long NOW_MICROS = 1_796_206_966_678_123L;

    @ParameterizedTest(name = "{0}/{1} ms, burst {2}")
    @CsvSource({"3, 10000, 3", "7, 60000, 7", "9, 60000, 9", "11, 60000, 11", "10, 1000, 10", "30, 7000, 30",
            "3, 10000, 300", "7, 60000, 1", "1000, 3600000, 1000"})
    void theWholeBurstAtOnceThenOneAnInterval(long limit, long periodMillis, long burst) {
        TokenBucketModel bucket = new TokenBucketModel();
        RateRequest r = new RateRequest("k", Algorithm.TOKEN_BUCKET, limit, Duration.ofMillis(periodMillis), 1, burst, 0, limit);
        long admitted = 0;
        RateOutcome last = null;
        for (long i = 0; i < burst + 3; i++) {
            RateOutcome o = bucket.consume(r, NOW_MICROS);
            if (o.allowed()) {
                admitted++;
                assertThat(o.remaining()).as("remaining after %d", admitted).isEqualTo(burst - admitted);
            }
            last = o;
        }
        assertThat(admitted).isEqualTo(burst);
        long intervalMicros = (long) Math.ceil(periodMillis * 1000.0 / limit);
        assertThat(last.retryAfterMillis()).isEqualTo((long) Math.ceil(periodMillis * 1000.0 / limit / 1000));
        // One interval later, one token; a microsecond before it, none.
        assertThat(bucket.consume(r, NOW_MICROS + intervalMicros - 1).allowed()).isFalse();
        assertThat(bucket.consume(r, NOW_MICROS + intervalMicros).allowed()).isTrue();
        assertThat(bucket.consume(r, NOW_MICROS + intervalMicros).allowed()).isFalse();
    }
}
