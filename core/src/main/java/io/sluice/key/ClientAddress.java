package io.sluice.key;

import java.util.List;

/**
 * Finds the client address of a request: the direct peer, unless that peer is a trusted proxy, in which
 * case the chain of {@code sluice.client-address-header} (and no other header) is walked from right to
 * left to the first address that is not a trusted proxy.
 */
final class ClientAddress {
    /** Headers longer than this are not forwarding chains but attacks; the walk stops at this many hops. */
    private static final int MAX_HOPS = 32;

    private ClientAddress() {
    }

    /** The key form of the client address, or null when even the peer address is not an IP literal. */
    static String resolve(RequestView request, TrustedProxies trusted, ClientAddressHeader header) {
        byte[] client = of(request, trusted, header);
        return client == null ? null : IpAddress.keyOf(client);
    }

    /** The client address's bytes (4 or 16), or null when even the peer address is not an IP literal. */
    static byte[] of(RequestView request, TrustedProxies trusted, ClientAddressHeader header) {
        byte[] peer = IpAddress.parse(request.remoteAddress());
        if (peer == null) return null;
        if (!trusted.trusts(peer)) return peer;
        List<String> chain = header.chain(request);
        byte[] client = peer;
        int hops = 0;
        for (int i = chain.size() - 1; i >= 0 && hops < MAX_HOPS; i--, hops++) {
            byte[] hop = IpAddress.parse(chain.get(i));
            // An unparseable hop ("unknown", garbage) ends the walk: the last trusted proxy is the best we know.
            if (hop == null) break;
            client = hop;
            if (!trusted.trusts(hop)) break;
        }
        return client;
    }
}
