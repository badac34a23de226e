package io.sluice.redisson;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The text of a Lua script from its files next to this class: Lua scripts cannot include each other, so shared
 * openings ({@code redis-time.lua}: Redis TIME or a test's own time; {@code wake.lua}: waking waiters;
 * {@code expiry.lua}: a decision call's expiry) are
 * prepended, file after file.
 */
final class LuaScript {
    private LuaScript() {
    }

    /** The files, one after another. */
    static String of(String first, String... rest) {
        StringBuilder all = new StringBuilder(file(first));
        for (String file : rest) all.append(file(file));
        return all.toString();
    }

    /**
     * A decision script that decides several requests for its key in one call: its files wrapped in one Lua
     * function, called by {@code batch.lua} once per request. The scripts' own text stays as it is.
     */
    static String batched(String first, String... rest) {
        return batchedText(of(first, rest));
    }

    /** {@link #batched}, of a script's whole text. */
    static String batchedText(String text) {
        return "local function decide(KEYS, ARGV)\n" + text + "\nend\n" + file("shared/batch.lua");
    }

    /**
     * A decision script (alone or batched) that takes one more argument, last: the Redis time after which it acts on
     * nothing ({@code expiry.lua}, which takes the argument off before the script reads its own).
     */
    static String expiring(String text) {
        return file("shared/expiry.lua") + text;
    }

    /** The text of one file. */
    static String text(String name) {
        return file(name);
    }

    private static String file(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing script " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
