package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Finds the client address of a request: the direct peer, unless that peer is a trusted proxy, in which
 * case the forwarding chain ({@code Forwarded}, else {@code X-Forwarded-For}) is walked from right to
 * left to the first address that is not a trusted proxy.
 */
final class ClientAddress {
    /** Headers longer than this are not forwarding chains but attacks; the walk stops at this many hops. */
    private static final int MAX_HOPS = 32;

    private ClientAddress() {
    }

    /** The key form of the client address, or null when even the peer address is not an IP literal. */
    static String resolve(RequestView request, TrustedProxies trusted) {
        byte[] peer = IpAddress.parse(request.remoteAddress());
        if (peer == null) return null;
        if (!trusted.trusts(peer)) return IpAddress.keyOf(peer);
        List<String> chain = forwardedFor(request);
        if (chain.isEmpty()) chain = xForwardedFor(request);
        byte[] client = peer;
        int hops = 0;
        for (int i = chain.size() - 1; i >= 0 && hops < MAX_HOPS; i--, hops++) {
            byte[] hop = IpAddress.parse(chain.get(i));
            // An unparseable hop ("unknown", garbage) ends the walk: the last trusted proxy is the best we know.
            if (hop == null) break;
            client = hop;
            if (!trusted.trusts(hop)) break;
        }
        return IpAddress.keyOf(client);
    }

    private static List<String> xForwardedFor(RequestView request) {
        List<String> out = new ArrayList<>();
        for (String header : request.headers("X-Forwarded-For")) {
            for (String part : header.split(",", -1)) {
                out.add(stripPort(part.trim()));
            }
        }
        return out;
    }

    /** The {@code for=} values of RFC 7239 {@code Forwarded} headers, in order. */
    private static List<String> forwardedFor(RequestView request) {
        List<String> out = new ArrayList<>();
        for (String header : request.headers("Forwarded")) {
            for (String element : header.split(",", -1)) {
                String value = null;
                for (String pair : element.split(";")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0 && pair.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals("for")) {
                        value = pair.substring(eq + 1).trim();
                    }
                }
                if (value == null) {
                    out.add("");
                    continue;
                }
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                out.add(stripPort(value));
            }
        }
        return out;
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
}
