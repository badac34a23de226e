package io.sluice.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An entry is read only as the kind its algorithm keeps permits under. */
class EntryTest {

    @Test
    void anEntryIsReadAsItsOwnKind() {
        Entry window = new Entry.WindowIndex(42);
        assertThat(Entry.as(Entry.WindowIndex.class, window)).isSameAs(window);
        assertThat(Entry.as(Entry.WindowIndex.class, null)).as("none known").isNull();
    }

    @Test
    void anEntryOfAnotherAlgorithmIsRefused() {
        assertThatThrownBy(() -> Entry.as(Entry.WindowIndex.class, new Entry.LogEntry("r:1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WindowIndex");
    }

    @Test
    void aStockUseIsWithinItsHold() {
        Prefetch.Receipt receipt = new Prefetch.Receipt("s1", 3);
        assertThat(receipt.use(900)).isEqualTo(new Entry.StockUse("s1", 900));
        assertThatThrownBy(() -> receipt.use(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
