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

    @Test
    void answersThatCrossedKeepTheLower() {
        heard.heard(6, 0, 40);
        heard.add(2);
        assertThat(heard.heardBeside(LOG, 9, 10, 40)).as("8 heard and added, lower than 9").isEqualTo(8);
        assertThat(heard.now(LOG, 10, 0)).isEqualTo(8);
        long answer = heard.answer();
        assertThat(heard.heardBeside(LOG, 5, 10, 40)).isEqualTo(5);
        assertThat(heard.now(LOG, 10, 0)).isEqualTo(5);
        assertThat(heard.answer()).as("what was heard stands on the lower answer").isEqualTo(answer + 1);
    }

    @Test
    void aBucketsCrossedAnswersCompareByTheLaterAnswersTime() {
        heard.heard(1, 0, 40);
        assertThat(heard.heardBeside(BUCKET, 3, 140, 100)).as("1 heard at 0 stands at 3 by 140").isEqualTo(3);
        assertThat(heard.now(BUCKET, 140, 0)).isEqualTo(3);
        assertThat(heard.heardBeside(BUCKET, 4, 140, 100)).as("the 3 kept").isEqualTo(3);
        assertThat(heard.heardBeside(BUCKET, 2, 140, 100)).isEqualTo(2);
        assertThat(heard.now(BUCKET, 240, 0)).as("2 heard at 140, reset at 240").isEqualTo(3);
    }
}
