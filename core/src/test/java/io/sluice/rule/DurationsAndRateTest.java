package io.sluice.rule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsAndRateTest {

    @Test
    void parsesEveryShortUnit() {
        assertThat(Durations.parse("500ms")).contains(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).contains(Duration.ofSeconds(30));
        assertThat(Durations.parse("2m")).contains(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).contains(Duration.ofHours(1));
        assertThat(Durations.parse("1d")).contains(Duration.ofDays(1));
        assertThat(Durations.parse("0s")).contains(Duration.ZERO);
        assertThat(Durations.parse("  45s ")).contains(Duration.ofSeconds(45));
    }

    @Test
    void parsesIso8601() {
        assertThat(Durations.parse("PT1H")).contains(Duration.ofHours(1));
        assertThat(Durations.parse("PT0.25S")).contains(Duration.ofMillis(250));
        assertThat(Durations.parse("pt10s")).contains(Duration.ofSeconds(10));
        assertThat(Durations.parse("P1D")).contains(Duration.ofDays(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10", "s", "1x", "-1s", "1.5s", "1 s", "PT-1S", "P", "PTXS", "1S", "1H", "ten s",
            "1000000000000s"})
    void rejectsWhatIsNotADuration(String text) {
        assertThat(Durations.parse(text)).isEmpty();
    }

    @Test
    void rejectsDurationsTooLongForMilliseconds() {
        // 999999999999 days is more milliseconds than a long holds; every user of a duration calls toMillis().
        assertThat(Durations.parse("999999999999d")).isEmpty();
        assertThat(Durations.parse("P999999999999D")).isEmpty();
        assertThat(Durations.parse("999999999999h")).contains(Duration.ofHours(999_999_999_999L));
    }

    @Test
    void formatsTheShortestForm() {
        assertThat(Durations.format(Duration.ofDays(2))).isEqualTo("2d");
        assertThat(Durations.format(Duration.ofHours(25))).isEqualTo("25h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(Durations.format(Duration.ofSeconds(61))).isEqualTo("61s");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
    }

    @Test
    void parsesTheRatesOfTheContract() {
        assertThat(Rate.parse("10/1h")).contains(new Rate(10, Duration.ofHours(1)));
        assertThat(Rate.parse("40/1m")).contains(new Rate(40, Duration.ofMinutes(1)));
        assertThat(Rate.parse("5/10s")).contains(new Rate(5, Duration.ofSeconds(10)));
        assertThat(Rate.parse("100/s")).contains(new Rate(100, Duration.ofSeconds(1)));
        assertThat(Rate.parse("2/500ms")).contains(new Rate(2, Duration.ofMillis(500)));
        assertThat(Rate.parse("5/PT10S")).contains(new Rate(5, Duration.ofSeconds(10)));
        assertThat(Rate.parse("1/1d")).contains(new Rate(1, Duration.ofDays(1)));
        assertThat(Rate.parse("3/h")).contains(new Rate(3, Duration.ofHours(1)));
        assertThat(Rate.parse("7/ms")).contains(new Rate(7, Duration.ofMillis(1)));
        assertThat(Rate.parse(" 10 / 1h ")).contains(new Rate(10, Duration.ofHours(1)));
    }

    @Test
    void rateToStringReadsBack() {
        assertThat(Rate.parse("10/1h").map(Rate::toString)).contains("10/1h");
        assertThat(Rate.parse("100/s").map(Rate::toString)).contains("100/1s");
        assertThat(Rate.parse("5/PT10S").map(Rate::toString)).contains("5/10s");
        assertThat(Rate.parse("2/500ms").map(Rate::toString)).contains("2/500ms");
        assertThat(Rate.parse("1/60m").map(Rate::toString)).contains("1/1h");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0/1s", "-1/1s", "10/0s", "10", "/1s", "10/", "ten/h", "10/1x", "", "/", "10/1s/2",
            "1.5/1s", "10/PT0S", "10/PT0.0001S", "1/-1s", "1/999999999999d", "+1/1s"})
    void rejectsBadRates(String text) {
        assertThat(Rate.parse(text)).isEqualTo(Optional.empty());
    }

    @Test
    void constructorRejectsImpossibleRates() {
        assertThatThrownBy(() -> new Rate(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("permits must be from 1 to 1000000000: 0");
        assertThatThrownBy(() -> new Rate(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("period must be from 1ms to 366d: PT0S");
    }
}
