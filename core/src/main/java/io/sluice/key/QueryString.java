package io.sluice.key;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Reads one parameter from a raw query string, never from a request body. */
final class QueryString {
    private QueryString() {
    }

    /** The decoded first value of {@code name}, or null. Malformed escapes are kept as they are. */
    static String first(String query, String name) {
        if (query == null || query.isEmpty()) return null;
        int start = 0;
        int n = query.length();
        while (start <= n) {
            int amp = query.indexOf('&', start);
            int end = amp < 0 ? n : amp;
            int eq = query.indexOf('=', start);
            if (eq < 0 || eq > end) eq = end;
            String k = decode(query.substring(start, eq));
            if (k.equals(name)) {
                return eq >= end ? "" : decode(query.substring(eq + 1, end));
            }
            if (amp < 0) break;
            start = amp + 1;
        }
        return null;
    }

    private static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }
}
