package io.sluice.redisson;

import io.sluice.spi.StoredOverride;
import io.sluice.spi.StoredOverrides;
import org.redisson.api.RScript;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** {@code overrides/read.lua}: every override and their version, in one atomic step. */
final class OverridesReadScript {
    private static final String TEXT = LuaScript.of("overrides/read.lua");

    private final RScript scripts;

    OverridesReadScript(RScript scripts) {
        this.scripts = scripts;
    }

    CompletionStage<StoredOverrides> call(String prefix) {
        return scripts.<List<Object>>evalAsync(OverrideKeys.of(prefix).get(0).toString(), RScript.Mode.READ_ONLY, TEXT,
                RScript.ReturnType.LIST, OverrideKeys.of(prefix)).thenApply(OverridesReadScript::read);
    }

    /** Version, then field and value pairs; a value is {@code "<untilMillis> <limit>"}. */
    private static StoredOverrides read(List<Object> answer) {
        long version = Long.parseLong(answer.get(0).toString());
        List<StoredOverride> out = new ArrayList<>();
        for (int i = 1; i + 1 < answer.size(); i += 2) {
            String field = answer.get(i).toString();
            String value = answer.get(i + 1).toString();
            int colon = field.indexOf(':');
            int space = value.indexOf(' ');
            if (colon < 0 || space < 0) continue; // not Sluice's: left alone
            out.add(new StoredOverride(field.substring(0, colon), field.substring(colon + 1), value.substring(space + 1),
                    Long.parseLong(value.substring(0, space))));
        }
        return new StoredOverrides(version, out);
    }
}
