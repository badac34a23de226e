package io.sluice.key;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The peers whose {@code sluice.client-address-header} is believed: addresses and
 * CIDR blocks such as {@code 10.0.0.0/8, ::1}. Immutable and thread-safe.
 */
public final class TrustedProxies {
    public static final String EXPECTED = "a comma-separated list of IP addresses or CIDR blocks such as 10.0.0.0/8, ::1";
    public static final TrustedProxies NONE = new TrustedProxies(List.of(), "");

    private record Block(byte[] network, int bits) {
        boolean contains(byte[] a) {
            if (a.length != network.length) return false;
            int full = bits / 8;
            for (int i = 0; i < full; i++) if (a[i] != network[i]) return false;
            int rest = bits % 8;
            if (rest == 0) return true;
            int mask = (0xff << (8 - rest)) & 0xff;
            return (a[full] & mask) == (network[full] & mask);
        }
    }

    private final List<Block> blocks;
    private final String text;

    private TrustedProxies(List<Block> blocks, String text) {
        this.blocks = List.copyOf(blocks);
        this.text = text;
    }

    /** Parses the list; empty when any entry is not an address or CIDR block. */
    public static Optional<TrustedProxies> parse(String text) {
        if (text.isBlank()) return Optional.of(NONE);
        List<Block> blocks = new ArrayList<>();
        for (String raw : text.split(",")) {
            String entry = raw.trim();
            int slash = entry.indexOf('/');
            byte[] addr = IpAddress.parse(slash < 0 ? entry : entry.substring(0, slash));
            if (addr == null) return Optional.empty();
            int bits = addr.length * 8;
            if (slash >= 0) {
                String b = entry.substring(slash + 1);
                if (!b.matches("\\d{1,3}")) return Optional.empty();
                int requested = Integer.parseInt(b);
                // An IPv4-mapped block (::ffff:10.0.0.0/104) was unmapped to 4 bytes: shift its prefix too.
                if (addr.length == 4 && entry.indexOf(':') >= 0) requested -= 96;
                if (requested < 0 || requested > addr.length * 8) return Optional.empty();
                bits = requested;
            }
            blocks.add(new Block(addr, bits));
        }
        return Optional.of(new TrustedProxies(blocks, text.trim()));
    }

    /** Whether the literal address is a trusted proxy. Anything that is not an IP literal is not. */
    public boolean trusts(String address) {
        if (blocks.isEmpty()) return false;
        return trusts(IpAddress.parse(address));
    }

    boolean trusts(byte[] addr) {
        if (addr == null) return false;
        for (Block b : blocks) if (b.contains(addr)) return true;
        return false;
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }
}
