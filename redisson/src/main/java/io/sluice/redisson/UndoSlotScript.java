package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.RateRequest;
import org.redisson.api.RScript;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@code undo-slot.lua}: gives back the slot a leaky-bucket decision took, by the slot's end its answer carried, when
 * it is still the last slot scheduled; one with later slots after it stays taken.
 */
final class UndoSlotScript {
    private static final String TEXT = LuaScript.of("rate/undo-slot.lua");
    private static final long GIVEN_BACK = 1;

    private final RScript scripts;

    UndoSlotScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param slotEnd the end of the slot the decision took ({@code RateOutcome.entry})
     * @return whether the slot was given back (not: a later slot was scheduled since, or the pace changed)
     */
    CompletionStage<Boolean> call(RateRequest r, Entry.SlotEnd slotEnd) {
        return scripts.<Long>evalAsync(r.key(), RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        List.of(r.key()), Long.toString(slotEnd.endMicros()), Long.toString(r.period().toMillis()),
                        Long.toString(r.effectiveLimit()), Long.toString(r.cost()))
                .thenApply(v -> v == GIVEN_BACK);
    }
}
