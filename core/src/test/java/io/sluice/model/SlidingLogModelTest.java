package io.sluice.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The model's sliding log gives back a request's own entry, however late (issue 21's late give-back). */
class SlidingLogModelTest {
    private static final long PERIOD = 10_000;
    private static final long LIMIT = 3;

    @Test
    void aLateRefundRemovesTheRequestsOwnEntryNotTheNewest() {
        SlidingLogModel log = new SlidingLogModel();
        SlidingLogModel.Entry a = log.consume(1, LIMIT, PERIOD, 0);
        SlidingLogModel.Entry b = log.consume(1, LIMIT, PERIOD, 5_000);
        assertThat(a).isNotNull();
        assertThat(b).isNotNull();
        log.refund(a);
        assertThat(log.used(PERIOD, 5_000)).isEqualTo(1);
        // At 10.5 s A's entry would have left anyway; B's counts until 15 s: 2 more fit, not 3.
        assertThat(log.used(PERIOD, 10_500)).isEqualTo(1);
        assertThat(log.consume(1, LIMIT, PERIOD, 10_500)).isNotNull();
        assertThat(log.consume(1, LIMIT, PERIOD, 10_500)).isNotNull();
        assertThat(log.consume(1, LIMIT, PERIOD, 10_500)).isNull();
        assertThat(log.used(PERIOD, 15_000)).as("B's entry left at 15 s").isEqualTo(2);
    }

    @Test
    void aRefundOfAnEntryThatLeftTheWindowGivesNothingBack() {
        SlidingLogModel log = new SlidingLogModel();
        SlidingLogModel.Entry a = log.consume(2, LIMIT, PERIOD, 0);
        assertThat(log.consume(1, LIMIT, PERIOD, 10_000)).isNotNull();
        log.refund(a);
        assertThat(log.used(PERIOD, 10_000)).isEqualTo(1);
        log.refund(a);
        assertThat(log.used(PERIOD, 10_000)).as("never twice").isEqualTo(1);
    }

    @Test
    void aRejectionTakesNoEntry() {
        SlidingLogModel log = new SlidingLogModel();
        assertThat(log.consume(4, LIMIT, PERIOD, 0)).isNull();
        assertThat(log.used(PERIOD, 0)).isZero();
    }
}
