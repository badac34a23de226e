package io.sluice.engine.prefetch;

import io.sluice.spi.PrefetchUse;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a stock's permits were used: one use an instant, put-backs of unknown permits off the latest, a give-back off its
 * own use, bounded by merging later.
 */
class StockUsesTest {
    private final StockUses uses = new StockUses();

    @Test
    void usesAtOneInstantAreOne() {
        uses.add(10, 1);
        uses.add(10, 2);
        uses.add(30, 1);
        assertThat(uses.drain(100)).containsExactly(new PrefetchUse(3, 90), new PrefetchUse(1, 70));
        assertThat(uses.drain(100)).as("told once").isEmpty();
    }

    @Test
    void aPutBackComesOffTheLatestUses() {
        uses.add(10, 2);
        uses.add(20, 1);
        uses.remove(2);
        assertThat(uses.drain(100)).containsExactly(new PrefetchUse(1, 90));
    }

    @Test
    void aGiveBackComesOffItsOwnUseAndLaterUsesKeepTheirInstants() {
        uses.add(10, 1);
        uses.add(20, 2);
        uses.add(30, 1);
        uses.remove(10, 1);
        uses.remove(20, 1);
        assertThat(uses.drain(100)).containsExactly(new PrefetchUse(1, 80), new PrefetchUse(1, 70));
    }

    @Test
    void aGiveBackOfAMergedUseComesOffTheUseItMergedInto() {
        for (int i = 0; i < StockUses.MAX_INSTANTS; i++) uses.add(i, 1);
        uses.add(1000, 5);
        // Instant 4 merged into 5: its permit comes off there, the pair's other permit stays at 5.
        uses.remove(4, 1);
        List<PrefetchUse> told = uses.drain(2000);
        assertThat(told.get(2)).isEqualTo(new PrefetchUse(1, 2000 - 5));
        assertThat(told.get(1)).isEqualTo(new PrefetchUse(2, 2000 - 3));
        assertThat(told.stream().mapToLong(PrefetchUse::permits).sum()).isEqualTo(StockUses.MAX_INSTANTS + 4);
    }

    @Test
    void pastTheMostInstantsNeighboursMergeAtTheLaterOne() {
        for (int i = 0; i < StockUses.MAX_INSTANTS; i++) uses.add(i, 1);
        uses.add(1000, 5);
        List<PrefetchUse> told = uses.drain(2000);
        assertThat(told).hasSize(StockUses.MAX_INSTANTS / 2 + 1);
        // Each pair counts from its later instant: in the window no shorter than its uses.
        assertThat(told.get(0)).isEqualTo(new PrefetchUse(2, 2000 - 1));
        assertThat(told.get(told.size() - 1)).isEqualTo(new PrefetchUse(5, 1000));
        assertThat(told.stream().mapToLong(PrefetchUse::permits).sum()).isEqualTo(StockUses.MAX_INSTANTS + 5);
    }
}
