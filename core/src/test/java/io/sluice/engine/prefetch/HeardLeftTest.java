package io.sluice.engine.prefetch;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What a key has left besides this server's stocks, between the backend's answers. */
class HeardLeftTest {
    /** 10 a second (a token every 100 ms), burst 5. */
    private static final RateRequest BUCKET = RateRequest.of(Algorithm.TOKEN_BUCKET, "k", 10, Duration.ofSeconds(1)).withBurst(5);
    private static final RateRequest LOG = RateRequest.of(Algorithm.SLIDING_LOG, "k", 10, Duration.ofSeconds(1));

    private final HeardLeft heard = new HeardLeft();

    @Test
    void aBucketGainsATokenAtTheResetThenOneAnInterval() {
        heard.heard(1, 0, 40);
        assertThat(heard.now(BUCKET, 39, 0)).isEqualTo(1);
        assertThat(heard.now(BUCKET, 40, 0)).isEqualTo(2);
        assertThat(heard.now(BUCKET, 140, 0)).isEqualTo(3);
        assertThat(heard.now(BUCKET, 10_000, 2)).as("up to its burst less the tokens lent").isEqualTo(3);
    }

    @Test
    void aRefundNeverFillsTheBucketPastItsRoom() {
        // Seed 3973894822: a refund added to what the bucket had, near full, read one token more than the bucket has.
        heard.heard(2, 0, 40);
        heard.add(2);
        assertThat(heard.now(BUCKET, 0, 1)).as("4 heard, room for 5 less the 1 lent").isEqualTo(4);
        heard.add(1);
        assertThat(heard.now(BUCKET, 0, 1)).isEqualTo(4);
        assertThat(heard.now(BUCKET, 500, 1)).isEqualTo(4);
    }

    @Test
    void aLogIsAsHeard() {
        heard.heard(3, 0, 40);
        heard.add(2);
        assertThat(heard.now(LOG, 10_000, 0)).isEqualTo(5);
    }
}
