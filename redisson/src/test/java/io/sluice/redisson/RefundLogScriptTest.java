package io.sluice.redisson;

import io.sluice.spi.Entry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code refund-log.lua}'s entry argument, as the script parses it: typed entries change no byte on the wire. */
class RefundLogScriptTest {

    @Test
    void aLogEntryIsItsId() {
        assertThat(RefundLogScript.argument(new Entry.LogEntry("9f3a:2"))).isEqualTo("9f3a:2");
    }

    @Test
    void aStockUseIsTheStocksIdAndItsTimeBeforeTheHoldsEnd() {
        assertThat(RefundLogScript.argument(new Entry.StockUse("s9f3a", 900))).isEqualTo("s9f3a@900");
    }

    @Test
    void noEntryIsTheScriptsUnknown() {
        assertThat(RefundLogScript.argument(null)).isEmpty();
    }

    @Test
    void aWindowIsNoLogsEntry() {
        assertThatThrownBy(() -> RefundLogScript.argument(new Entry.WindowIndex(3))).isInstanceOf(IllegalArgumentException.class);
    }
}
