package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code sluice.client-address-header}: the one header a trusted proxy sets for the client address. Only
 * this header is read: a proxy appends to the header it sets and passes every other one through untouched,
 * so a second header would be the client's own choice. {@code X-Forwarded-For} (the default) and any
 * single-address header such as {@code X-Real-IP} are read as comma-separated lists; {@code Forwarded} as RFC
 * 7239 {@code for=} values. Immutable and thread-safe.
 */
public final class ClientAddressHeader {
    public static final String EXPECTED = "a header name such as X-Forwarded-For (the default), Forwarded or X-Real-IP";
    public static final ClientAddressHeader X_FORWARDED_FOR = new ClientAddressHeader("X-Forwarded-For", false);
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}");

    private final String name;
    private final boolean rfc7239;

    private ClientAddressHeader(String name, boolean rfc7239) {
        this.name = name;
        this.rfc7239 = rfc7239;
    }

    /** The header of that name; empty when the name is not an HTTP header name. */
    public static Optional<ClientAddressHeader> parse(String text) {
        String name = text.trim();
        if (!TOKEN.matcher(name).matches()) return Optional.empty();
        if (name.equalsIgnoreCase(X_FORWARDED_FOR.name)) return Optional.of(X_FORWARDED_FOR);
        return Optional.of(new ClientAddressHeader(name, name.equalsIgnoreCase("Forwarded")));
    }

    /** The header's name. */
    public String name() {
        return name;
    }

    /** The addresses the header lists, nearest the client first (every instance of the header, in order). */
    List<String> chain(RequestView request) {
        List<String> out = new ArrayList<>();
        for (String header : request.headers(name)) {
            for (String element : header.split(",", -1)) {
                out.add(stripPort(rfc7239 ? forValue(element) : element.trim()));
            }
        }
        return out;
    }

    /** The {@code for=} value of one RFC 7239 element, unquoted; empty when it has none. */
    private static String forValue(String element) {
        String value = "";
        for (String pair : element.split(";")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals("for")) {
                value = pair.substring(eq + 1).trim();
            }
        }
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        return value;
    }

    /** {@code 1.2.3.4:80} → {@code 1.2.3.4}; {@code [::1]:80} → {@code ::1}; a bare IPv6 literal stays. */
    private static String stripPort(String s) {
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            return close > 0 ? s.substring(1, close) : s;
        }
        int colon = s.indexOf(':');
        if (colon > 0 && s.indexOf(':', colon + 1) < 0) return s.substring(0, colon);
        return s;
    }

    @Override
    public String toString() {
        return name;
    }
}
